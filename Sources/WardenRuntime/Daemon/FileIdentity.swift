#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Which file a descriptor or a path names: its device and inode.
struct FileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64

    /// The file `descriptor` is open on (`fstat(2)`); nil when it is not open.
    static func of(descriptor: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The file `path` names, its links followed (`stat(2)`); nil when there is none.
    static func of(path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
