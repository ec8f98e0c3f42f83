import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Pushing a frozen app's memory out to swap (zram or a swap file), so that a suspended app
/// takes less RAM and more apps stay alive, as iOS compresses suspended apps and Android compacts
/// cached ones.
///
/// cgroup v2 with the memory controller: `memory.reclaim` (Linux 5.19+) of everything the group
/// is charged. Otherwise: `process_madvise(MADV_PAGEOUT)` (Linux 5.10+) on every private anonymous
/// mapping of each of the group's processes, found in `/proc/PID/maps`.
public enum MemoryCompression {
    /// How a compression went.
    public enum Outcome: Sendable, Equatable {
        /// Done: how much was asked of the kernel (bytes).
        case done(requested: Int64)
        /// The kernel has neither way (too old, or no memory controller at all).
        case unsupported(String)
    }

    /// Reclaims the group at `directory` (its cgroup v2 directory) through `memory.reclaim`,
    /// asking for `bytes`; the kernel reclaims what it can (EAGAIN: less than asked).
    ///
    /// - Throws: `CgroupError` when the file is missing (`missingController`) or refuses.
    public static func reclaim(directory: String, bytes: Int64) throws(CgroupError) {
        let path = directory + "/memory.reclaim"
        switch Syscalls.writeText(String(max(bytes, 4096)), to: path) {
        case .success: return
        case .failure(let error) where error == .tryAgain: return  // reclaimed less than asked: fine
        case .failure(let error) where error.meansVanished:
            throw CgroupError(
                code: .missingController,
                message:
                    "The kernel has no memory.reclaim in \"\(directory)\" (it needs Linux 5.19 and the cgroup2 memory controller).",
                cause: error.description)
        case .failure(let error):
            throw CgroupError.from(error, "write", path: path)
        }
    }

    /// Pages out the private anonymous memory of each process `pids` (through its pidfd, so a
    /// pid reused meanwhile is never touched); returns the bytes advised.
    ///
    /// - Throws: `CgroupError` with code `missingController` when the kernel has no
    ///   `process_madvise` (before 5.10).
    public static func pageOut(pids: [Int32]) throws(CgroupError) -> Int64 {
        var advised: Int64 = 0
        for pid in pids {
            guard case .success(let pidfd) = Syscalls.openPidFD(pid) else { continue }
            defer { Syscalls.close(pidfd) }
            guard case .success(let maps) = Syscalls.readText("/proc/\(pid)/maps") else { continue }
            let ranges = anonymousRanges(maps)
            guard !ranges.isEmpty else { continue }
            let starts = ranges.map { UInt(truncatingIfNeeded: $0.start) }
            let lengths = ranges.map { UInt(truncatingIfNeeded: $0.length) }
            let result = starts.withUnsafeBufferPointer { starts in
                lengths.withUnsafeBufferPointer { lengths in
                    warden_page_out(pidfd, starts.baseAddress, lengths.baseAddress, ranges.count)
                }
            }
            if result < 0 {
                let error = Errno.current
                if error == .noSuchSystemCall {
                    throw CgroupError(
                        code: .missingController, message: "The kernel has no process_madvise (it needs Linux 5.10).",
                        cause: error.description)
                }
                continue
            }
            advised += Int64(result)
        }
        return advised
    }

    /// The private, writable, anonymous ranges of a `/proc/PID/maps` text (the heap, the
    /// stack, anonymous mappings): what swap can take. File mappings are the page cache's.
    public static func anonymousRanges(_ maps: String) -> [(start: UInt64, length: UInt64)] {
        var ranges: [(start: UInt64, length: UInt64)] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5 else { continue }
            let permissions = fields[1]
            guard permissions.count == 4, permissions.hasPrefix("rw"), permissions.last == "p" else { continue }
            let path = fields.count >= 6 ? fields[5...].joined(separator: " ") : ""
            guard path.isEmpty || path == "[heap]" || path == "[stack]" || path.hasPrefix("[anon") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16),
                end > start
            else { continue }
            ranges.append((start, end - start))
        }
        return ranges
    }
}
