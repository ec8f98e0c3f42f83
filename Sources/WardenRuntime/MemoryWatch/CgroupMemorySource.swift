import FoundationEssentials
public import Logging
public import WardenCgroup
public import WardenCore

/// The apps' footprints from their groups' memory files (kept open by a `MemorySampler`) and
/// the shared memory from appwarden's root group or the host.
///
/// Not thread-safe: the daemon actor is its only user.
public final class CgroupMemorySource: WardenMemorySource, @unchecked Sendable {
    private let sampler: MemorySampler
    private let driver: (any CgroupDriver)?
    private let logger: Logger
    private let meminfo = KeptOpenFile(path: "/proc/meminfo", capacity: 8192)
    private let devicePressure = KeptOpenFile(path: "/proc/pressure/memory", capacity: 256)
    /// The `mm_stat` of each zram device, when every swap device is one (read at the start).
    private let zramStats: [KeptOpenFile]?
    /// What a swapped byte takes of RAM, read again whenever a measured app has some of its
    /// memory in swap.
    private let swapShare = SwapRAMShareReader()
    private let deviceFiles: [(group: String, isV1: Bool, limit: KeptOpenFile, usage: KeptOpenFile)]
    /// The memory directory of each tracked group, and whether it is v1.
    private var memoryDirectories: [String: (path: String, isV1: Bool)] = [:]

    /// Makes a source for the groups of `driver` (nil: the host's memory only).
    public init(driver: (any CgroupDriver)?, logger: Logger) {
        self.driver = driver
        self.logger = logger
        self.sampler = MemorySampler(logger: logger)
        self.deviceFiles = Self.deviceFiles(of: driver)
        let swaps = (try? String(contentsOfFile: "/proc/swaps", encoding: .utf8)).map(SwapDevices.parse)
        self.zramStats = swaps?.zramNames?.map { KeptOpenFile(path: "/sys/block/\($0)/mm_stat", capacity: 256) }
    }

    public func track(_ group: AppGroup) {
        guard let source = driver?.layout.memorySource, source != .procfs else { return }
        if source == .v1, let path = group.memoryPath {
            memoryDirectories[group.name] = (path, true)
        } else if source == .unified, let path = group.unifiedPath {
            memoryDirectories[group.name] = (path, false)
        }
        do {
            try sampler.track(group, source: source)
        } catch {
            logger.warning("Cannot sample the memory of app \"\(group.name)\": \(error)")
        }
    }

    public func untrack(_ name: String) {
        sampler.untrack(name)
        memoryDirectories[name] = nil
    }

    public func oomState(of name: String) -> GroupOOMState? {
        guard let directory = memoryDirectories[name] else { return nil }
        return GroupOOMState.read(directory: directory.path, isV1: directory.isV1)
    }

    /// Each app's footprint, the part in swap and the RAM that part takes: the swap devices'
    /// `inRAMShare` of it, read only when some measured app has memory in swap (not known, nil,
    /// when `/proc/swaps` cannot be read).
    public func measurements(of names: [String]) -> [String: AppMemoryMeasurement] {
        let sampled = sampler.sampleStatistics(of: names)
        var share: Double??
        return sampled.mapValues { statistics in
            let swapped = min(statistics.swap, statistics.footprint)
            var inRAM: Int64? = 0
            if swapped > 0 {
                if share == nil { share = swapShare.share(assumedZramRatio: SwapFigures.assumedZramRatio) }
                inRAM = share!.map { Int64(clamping: SwapDevices.swappedInRAM(swapped, share: $0)) }
            }
            return AppMemoryMeasurement(
                footprint: Int64(clamping: statistics.footprint), swapped: Int64(clamping: swapped),
                swappedInRAM: inRAM)
        }
    }

    public func swappedInRAM(_ swapped: Int64) -> Int64? {
        guard swapped > 0 else { return 0 }
        return swapShare.share(assumedZramRatio: SwapFigures.assumedZramRatio).map {
            Int64(clamping: SwapDevices.swappedInRAM(UInt64(swapped), share: $0))
        }
    }

    /// When appwarden's root group has a memory limit below the host's memory (a device
    /// modelled by a parent group), the limit and what is left under it; otherwise the host's
    /// `MemAvailable` and `MemTotal`. The files stay open between calls.
    public func deviceMemory() -> (available: Int64, total: Int64)? {
        let host = hostMemory()
        let hostTotal = host.map { Int64(clamping: $0.total) } ?? Int64.max
        for files in deviceFiles {
            guard let limit = files.limit.readNumber(), limit > 0, limit < hostTotal,
                let usage = files.usage.readNumber()
            else { continue }
            return (max(0, limit - usage), limit)
        }
        return host.map { (Int64(clamping: $0.available), Int64(clamping: $0.total)) }
    }

    /// The host's swap, when the device is the host: what is left of it, the anonymous memory
    /// that could go there, zram's compression (measured once it holds 16 MiB, assumed before),
    /// and the whole device's memory stall.
    public func swapFigures() -> SwapFigures? {
        guard let host = hostMemory(), host.swapTotal > 0 else { return nil }
        for files in deviceFiles {
            if let limit = files.limit.readNumber(), limit > 0, limit < Int64(clamping: host.total) { return nil }
        }
        var ratio: Double?
        if let zramStats {
            var data: UInt64 = 0
            var memory: UInt64 = 0
            for stat in zramStats {
                guard let usage = stat.readText().flatMap(SwapDevices.zramUsage) else { continue }
                data += usage.data
                memory += usage.memory
            }
            ratio = data >= 16 << 20 && memory > 0 ? Double(data) / Double(memory) : SwapFigures.assumedZramRatio
        }
        let stall = devicePressure.readText().flatMap { try? PressureStall.parse($0, path: devicePressure.path) }
        return SwapFigures(
            free: Int64(clamping: host.swapFree), total: Int64(clamping: host.swapTotal),
            swappable: Int64(clamping: host.anon), compressionRatio: ratio, stallPercent: stall?.full.avg10)
    }

    public func deviceUsageGroup() -> (group: String, limit: Int64)? {
        guard let files = deviceFiles.first, files.isV1,
            let limit = files.limit.readNumber(), limit > 0
        else { return nil }
        let hostTotal = hostMemory().map { Int64(clamping: $0.total) } ?? Int64.max
        guard limit < hostTotal else { return nil }
        return (files.group, limit)
    }

    /// The host's figures from the kept-open `/proc/meminfo`; nil when unreadable.
    private func hostMemory() -> HostMemory? {
        let path = meminfo.path
        return meminfo.withContents { try? HostMemory.parse(bytes: $0, path: path) } ?? nil
    }

    /// The limit and usage files of appwarden's root group, v1 first.
    private static func deviceFiles(
        of driver: (any CgroupDriver)?
    ) -> [(group: String, isV1: Bool, limit: KeptOpenFile, usage: KeptOpenFile)] {
        guard let driver else { return [] }
        let probe = driver.group(named: "probe")
        var files: [(group: String, isV1: Bool, limit: KeptOpenFile, usage: KeptOpenFile)] = []
        if let memory = probe.memoryPath.map(Self.parent) {
            files.append(
                (
                    memory, true, KeptOpenFile(path: memory + "/memory.limit_in_bytes"),
                    KeptOpenFile(path: memory + "/memory.usage_in_bytes")
                ))
        }
        if driver.layout.memorySource == .unified, let unified = probe.unifiedPath.map(Self.parent) {
            files.append(
                (
                    unified, false, KeptOpenFile(path: unified + "/memory.max"),
                    KeptOpenFile(path: unified + "/memory.current")
                ))
        }
        return files
    }

    /// The number a cgroup file holds; nil when it is missing or says "max".
    static func readNumber(_ path: String) -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int64(text.trimmingWhitespace())
    }

    /// The directory that holds `path`.
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
