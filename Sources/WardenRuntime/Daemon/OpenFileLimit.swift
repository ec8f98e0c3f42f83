import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's limit on open files.
enum OpenFileLimit {
    /// Raises the soft limit on open files to the hard one (`setrlimit(RLIMIT_NOFILE)`), as
    /// systemd asks of programs that need many: each running app holds a pidfd, its memory
    /// watch and its memory-pressure socket, and systemd's default soft limit is 1,024.
    static func raise(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        let before = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            logger.debug("Open-file limit raised from \(before) to \(limit.rlim_max).")
        }
    }
}
