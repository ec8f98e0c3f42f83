import Foundation
public import Logging
public import WardenCgroup

/// The apps' footprints from their groups' memory files (kept open by a `MemorySampler`) and
/// the shared memory from appwarden's root group or the host.
///
/// Not thread-safe: the daemon actor is its only user.
public final class CgroupMemorySource: WardenMemorySource, @unchecked Sendable {
    private let sampler: MemorySampler
    private let driver: (any CgroupDriver)?
    private let logger: Logger

    /// Makes a source for the groups of `driver` (nil: the host's memory only).
    public init(driver: (any CgroupDriver)?, logger: Logger) {
        self.driver = driver
        self.logger = logger
        self.sampler = MemorySampler(logger: logger)
    }

    public func track(_ group: AppGroup) {
        guard let source = driver?.layout.memorySource, source != .procfs else { return }
        do {
            try sampler.track(group, source: source)
        } catch {
            logger.warning("Cannot sample the memory of app \"\(group.name)\": \(error)")
        }
    }

    public func untrack(_ name: String) {
        sampler.untrack(name)
    }

    public func footprints(where include: (String) -> Bool) -> [String: Int64] {
        sampler.sampleStatistics(where: include).mapValues { Int64(clamping: $0.footprint) }
    }

    /// When appwarden's root group has a memory limit below the host's memory (a device
    /// modelled by a parent group), the limit and what is left under it; otherwise the host's
    /// `MemAvailable` and `MemTotal`.
    public func deviceMemory() -> (available: Int64, total: Int64)? {
        let host = try? HostMemory.read()
        let hostTotal = host.map { Int64(clamping: $0.total) } ?? Int64.max
        if let driver {
            let probe = driver.group(named: "probe")
            var files: [(limit: String, usage: String)] = []
            if let memory = probe.memoryPath.map(Self.parent) {
                files.append((memory + "/memory.limit_in_bytes", memory + "/memory.usage_in_bytes"))
            }
            if driver.layout.memorySource == .unified, let unified = probe.unifiedPath.map(Self.parent) {
                files.append((unified + "/memory.max", unified + "/memory.current"))
            }
            for (limitFile, usageFile) in files {
                guard let limit = Self.readNumber(limitFile), limit > 0, limit < hostTotal,
                    let usage = Self.readNumber(usageFile)
                else { continue }
                return (max(0, limit - usage), limit)
            }
        }
        return host.map { (Int64(clamping: $0.available), Int64(clamping: $0.total)) }
    }

    /// The number a cgroup file holds; nil when it is missing or says "max".
    static func readNumber(_ path: String) -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The directory that holds `path`.
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
