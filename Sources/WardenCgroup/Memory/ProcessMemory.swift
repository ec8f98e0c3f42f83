#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Memory statistics for processes without a memory cgroup, from `/proc/PID/statm`.
public enum ProcessMemory {
    /// The system page size in bytes.
    public static let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))

    /// The statistics of one process; nil when it has exited.
    ///
    /// - Parameter procRoot: The proc file system's mount point (tests pass a fixture tree).
    public static func statistics(of pid: Int32, procRoot: String = "/proc") throws(CgroupError)
        -> MemoryStatistics?
    {
        let path = "\(procRoot)/\(pid)/statm"
        switch Syscalls.readText(path) {
        case .success(let text): return try MemoryStatistics.statm(text, pageSize: pageSize, path: path)
        case .failure(let error) where error.meansVanished: return nil
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }

    /// The summed statistics of `pids`; processes that have exited count as nothing.
    public static func statistics(of pids: [Int32], procRoot: String = "/proc") throws(CgroupError)
        -> MemoryStatistics
    {
        var total = MemoryStatistics(current: 0, anon: 0, file: 0, shmem: 0, swap: 0, kernel: 0)
        for pid in pids {
            guard let one = try statistics(of: pid, procRoot: procRoot) else { continue }
            total.current += one.current
            total.anon += one.anon
            total.file += one.file
        }
        return total
    }
}
