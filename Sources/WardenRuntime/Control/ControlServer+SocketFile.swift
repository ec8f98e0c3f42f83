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
            if let listener = listener(path: path) {
                throw ControlServerError(
                    "The control socket \"\(path)\" is already listened on by \(listener.description); stop it or "
                        + "choose another path.")
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

        /// The process that accepts connections on the socket at `path`, nil when none does
        /// (`connect(2)`, then `getsockopt(2)` with `SO_PEERCRED`: the pid that called `listen(2)`).
        static func listener(path: String) -> Listener? {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                buffer.copyBytes(from: bytes)
            }
            let result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard result == 0 else { return nil }
            var credentials = ControlServer.SocketCredentials()
            var length = socklen_t(MemoryLayout<ControlServer.SocketCredentials>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.pid > 0
            else { return Listener(pid: nil) }
            return Listener(pid: credentials.pid)
        }

        /// A process listening on a socket, as `listener(path:)` finds it.
        struct Listener {
            /// Its pid, when the kernel gave it.
            var pid: pid_t?

            /// The process as a sentence names it: `appwarden (pid 412)`, its name read from
            /// `/proc/PID/comm`; `a process` without a pid.
            var description: String {
                guard let pid else { return "a process" }
                let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { return "a process (pid \(pid))" }
                defer { close(descriptor) }
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(descriptor, &buffer, buffer.count)
                let name = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
                let trimmed = name.hasSuffix("\n") ? String(name.dropLast()) : name
                return trimmed.isEmpty ? "a process (pid \(pid))" : "\(trimmed) (pid \(pid))"
            }
        }
    }
}
