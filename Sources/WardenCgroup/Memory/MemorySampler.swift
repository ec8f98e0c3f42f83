public import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Samples the memory of many groups quickly through file descriptors kept open between sweeps.
///
/// Opening a cgroup file costs about four times as much as a `pread` on an open one, so the
/// sampler opens each group's files once (`track`) and re-reads them with `pread` from offset 0.
/// `sampleCurrent` reads one number per group (`memory.current` or `memory.usage_in_bytes`);
/// `sampleStatistics` also reads `memory.stat` for the footprint. A group that vanished is
/// dropped and logged, never reported as an error. Not thread-safe: keep it inside one actor.
public final class MemorySampler {
    private struct Tracked {
        var group: AppGroup
        var directory: String
        var isUnified: Bool
        var current: Int32
        var stat: Int32
        var swap: Int32?
        var peak: Int32?
    }

    private var tracked: [String: Tracked] = [:]
    private var buffer = [UInt8](repeating: 0, count: 16384)
    private let logger: Logger

    /// Makes an empty sampler.
    public init(logger: Logger = Logger(label: "appwarden.cgroup.sampler")) {
        self.logger = logger
    }

    deinit {
        for name in Array(tracked.keys) { untrack(name) }
    }

    /// The names of the groups being sampled.
    public var groupNames: [String] { tracked.keys.sorted() }

    /// Opens the memory files of `group`: the cgroup2 ones when `source` is `.unified`, the v1 ones
    /// when it is `.v1`. Tracking a group twice replaces the first.
    ///
    /// - Throws: `CgroupError` when the group has no directory for `source` or its files cannot be opened.
    public func track(_ group: AppGroup, source: CgroupLayout.MemorySource) throws(CgroupError) {
        untrack(group.name)
        let isUnified = source == .unified
        guard let directory = isUnified ? group.unifiedPath : group.memoryPath else {
            throw CgroupError(
                code: .missingController,
                message:
                    "The group \"\(group.name)\" has no \(isUnified ? "cgroup2" : "v1 memory") directory to sample.",
                cause: "memory source \(source.rawValue)")
        }
        func open(_ file: String) throws(CgroupError) -> Int32 {
            switch Syscalls.open(directory + "/" + file, O_RDONLY) {
            case .success(let fd): return fd
            case .failure(let error): throw .from(error, "open", path: directory + "/" + file)
            }
        }
        func openIfPresent(_ file: String) -> Int32? {
            try? Syscalls.open(directory + "/" + file, O_RDONLY).get()
        }
        let current = try open(isUnified ? "memory.current" : "memory.usage_in_bytes")
        let stat: Int32
        do {
            stat = try open("memory.stat")
        } catch {
            Syscalls.close(current)
            throw error
        }
        tracked[group.name] = Tracked(
            group: group, directory: directory, isUnified: isUnified, current: current, stat: stat,
            swap: isUnified ? openIfPresent("memory.swap.current") : nil,
            peak: openIfPresent(isUnified ? "memory.peak" : "memory.max_usage_in_bytes"))
    }

    /// Closes the files of group `name`, if it is tracked.
    public func untrack(_ name: String) {
        guard let entry = tracked.removeValue(forKey: name) else { return }
        for fd in [entry.current, entry.stat, entry.swap, entry.peak].compactMap({ $0 }) { Syscalls.close(fd) }
    }

    /// The memory charged to every tracked group, from one `pread` each.
    public func sampleCurrent() -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        result.reserveCapacity(tracked.count)
        for (name, entry) in tracked {
            guard let value = readNumber(entry.current) else {
                vanished(name, entry)
                continue
            }
            result[name] = value
        }
        return result
    }

    /// Full statistics (and so the footprint) of every tracked group.
    public func sampleStatistics() -> [String: MemoryStatistics] {
        sampleStatistics(of: Array(tracked.keys))
    }

    /// Full statistics (and so the footprint) of the tracked groups among `names`; names not
    /// tracked are passed over.
    ///
    /// Groups whose files cannot be read any more are dropped; a `memory.stat` that cannot be
    /// understood is logged and the group skipped for this sweep. Only the groups named are
    /// looked up: with a thousand suspended apps and a few running, asking of every tracked
    /// group whether to sample it cost more than reading the few that are sampled.
    public func sampleStatistics(of names: [String]) -> [String: MemoryStatistics] {
        var result: [String: MemoryStatistics] = [:]
        for name in names {
            guard let entry = tracked[name] else { continue }
            // memory.current first: the stat text must stay in the buffer while it is scanned.
            let current = readNumber(entry.current)
            let read = buffer.withUnsafeMutableBytes { Syscalls.pread(entry.stat, into: $0, at: 0) }
            guard case .success(let count) = read, let current else {
                vanished(name, entry)
                continue
            }
            let scanned = buffer.withUnsafeBytes { bytes in
                MemoryStatScanner.scan(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), unified: entry.isUnified)
            }
            guard let figures = scanned else {
                logger.warning(
                    "Skipping a group whose memory.stat could not be read.", metadata: ["path": "\(entry.directory)"])
                continue
            }
            result[name] = MemoryStatistics(
                current: current, anon: figures.anon, file: figures.file, shmem: figures.shmem,
                swap: entry.swap.flatMap { readNumber($0) } ?? figures.swap, kernel: figures.kernel,
                peak: entry.peak.flatMap { readNumber($0) })
        }
        return result
    }

    private func vanished(_ name: String, _ entry: Tracked) {
        logger.debug("A sampled group vanished.", metadata: ["path": "\(entry.directory)"])
        untrack(name)
    }

    /// Reads a decimal number without making a string.
    private func readNumber(_ fd: Int32) -> UInt64? {
        let count = buffer.withUnsafeMutableBytes { Syscalls.pread(fd, into: $0, at: 0) }
        guard case .success(let count) = count, count > 0 else { return nil }
        var value: UInt64 = 0
        for byte in buffer[0..<count] {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { break }
            value = value &* 10 &+ UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
