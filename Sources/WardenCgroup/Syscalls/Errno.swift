#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A POSIX error number returned by a system call, as in swift-system's `Errno`.
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    /// The raw `errno` value.
    public var rawValue: Int32

    /// Wraps a raw `errno` value.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's current `errno`.
    static var current: Errno { Errno(rawValue: errno) }

    /// `EINTR`: the call was interrupted by a signal.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFile = Errno(rawValue: ENOENT)
    /// `ESRCH`: no such process.
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    /// `EACCES`: permission denied.
    public static let accessDenied = Errno(rawValue: EACCES)
    /// `EPERM`: operation not permitted.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `EROFS`: read-only file system.
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// `EEXIST`: the file exists.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `EBUSY`: device or resource busy (a non-empty group, for example).
    public static let busy = Errno(rawValue: EBUSY)
    /// `EINVAL`: invalid argument.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ENODEV`: no such device (a process that exited while being read).
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    /// `EOPNOTSUPP`: operation not supported.
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    /// `EAGAIN`: try again (`memory.reclaim` reclaimed less than asked).
    public static let tryAgain = Errno(rawValue: EAGAIN)
    /// `ENOSYS`: the kernel has no such system call.
    public static let noSuchSystemCall = Errno(rawValue: ENOSYS)
    /// `ETIMEDOUT`: a wait ran out of time (a child that did not reach `execve`).
    public static let timedOut = Errno(rawValue: ETIMEDOUT)

    /// Whether this error means the thing asked about has vanished, which is normal for a group
    /// or process that ends while it is being read or killed.
    public var meansVanished: Bool {
        rawValue == ENOENT || rawValue == ESRCH || rawValue == ENODEV
    }

    public var description: String {
        let name = Errno.names[rawValue] ?? "errno \(rawValue)"
        return "\(name): \(String(cString: strerror(rawValue)))"
    }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF",
        EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST",
        ENODEV: "ENODEV", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", ENOSPC: "ENOSPC",
        EROFS: "EROFS", ENOSYS: "ENOSYS", ENOTEMPTY: "ENOTEMPTY", EOPNOTSUPP: "EOPNOTSUPP",
        ETIMEDOUT: "ETIMEDOUT",
    ]
}
