#if canImport(Glibc)
    import Glibc
#endif

extension ControlServer {
    /// The socket file of the control server: stale-file removal before binding, mode and group
    /// after, and removal at exit.
    enum SocketFile {
        /// Removes a socket file that nothing listens on; refuses a live socket or a non-socket.
        static func prepare(path: String) throws(ControlServerError) {
            let length = path.utf8.count
            guard length > 0, length < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
                throw ControlServerError(
                    "The control socket path \"\(path)\" is \(length) bytes long; a Unix socket path must be 1 to \(MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1) bytes."
                )
            }
            let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
            var directoryInfo = stat()
            guard directory.isEmpty || stat(directory, &directoryInfo) == 0 else {
                throw ControlServerError(
                    "The directory of the control socket \"\(path)\" does not exist; create it or choose another socket path."
                )
            }
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ControlServerError(
                    "The control socket path \"\(path)\" exists and is not a socket; remove it or choose another path.")
            }
            if isListening(path: path) {
                throw ControlServerError(
                    "Another process already listens on the control socket \"\(path)\"; stop it or choose another path."
                )
            }
            if unlink(path) != 0 && errno != ENOENT {
                throw ControlServerError(
                    "The stale control socket \"\(path)\" could not be removed: \(String(cString: strerror(errno))).")
            }
        }

        /// Sets mode 0660 and, when given, the admin group.
        static func secure(path: String, group: gid_t?) throws(ControlServerError) {
            if let group, chown(path, uid_t.max, group) != 0 {
                throw ControlServerError(
                    "The control socket \"\(path)\" could not be given group \(group): \(String(cString: strerror(errno)))."
                )
            }
            if chmod(path, 0o660) != 0 {
                throw ControlServerError(
                    "The control socket \"\(path)\" could not be given mode 0660: \(String(cString: strerror(errno))).")
            }
        }

        /// Which file a path names: its device and inode.
        struct Identity: Sendable, Equatable {
            var device: UInt64
            var inode: UInt64
        }

        /// The identity of the socket file at `path`; nil when there is none.
        static func identity(path: String) -> Identity? {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
            return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }

        /// Removes the socket file if it is still the one with `identity`; a file already gone,
        /// or one another process created in its place, is left alone.
        static func remove(path: String, ifStill identity: Identity) {
            guard self.identity(path: path) == identity else { return }
            unlink(path)
        }

        /// Whether a process accepts connections on the socket at `path` (`connect(2)`).
        static func isListening(path: String) -> Bool {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
            }
            let result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            return result == 0
        }
    }
}
