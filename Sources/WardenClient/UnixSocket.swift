#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connected Unix-domain stream socket: the few system calls the client needs, each retried
/// on `EINTR` and turned into a `WardenClientError` that names the socket.
final class UnixSocket: @unchecked Sendable {
    private let descriptor: Int32
    private let path: String
    /// The limit set by `limitWaits(to:)`, if any.
    private var waitLimit: Duration?
    /// Whether a read or write gave up at the limit set by `limitWaits(to:)`.
    private(set) var timedOut = false

    /// Why a connection could not be made, and whether trying again later may succeed.
    struct ConnectFailure: Error {
        var error: WardenClientError
        /// The socket is missing (`ENOENT`), nobody listens on it (`ECONNREFUSED`) or its backlog
        /// is full (`EAGAIN`): what a daemon that is restarting looks like. Nothing was sent.
        var isTransient: Bool
    }

    /// Connects to `path` with `socket(2)` and `connect(2)`.
    init(connectingTo path: String) throws(ConnectFailure) {
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !pathBytes.isEmpty, pathBytes.count < capacity else {
            throw ConnectFailure(
                error: WardenClientError(
                    .connection, "The socket path \"\(path)\" must be between 1 and \(capacity - 1) bytes long."),
                isTransient: false)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        #if canImport(Glibc)
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)
        #endif
        guard fd >= 0 else {
            throw ConnectFailure(error: Self.failure("create a socket for \"\(path)\""), isTransient: false)
        }
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while result < 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            let error = Self.failure("connect to the appwarden socket \"\(path)\"")
            close(fd)
            // A directory or a plain file refuses the connection as a socket without a daemon
            // does; no daemon will ever listen there, so say what the path is at once.
            if let other = Self.notASocket(path) {
                throw ConnectFailure(error: WardenClientError(.connection, other), isTransient: false)
            }
            throw ConnectFailure(error: error, isTransient: code == ENOENT || code == ECONNREFUSED || code == EAGAIN)
        }
        descriptor = fd
    }

    /// A sentence saying what `path` is when it exists and is not a socket (`stat(2)`, following
    /// symbolic links), nil when it is a socket, is missing or cannot be examined.
    static func notASocket(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK: return nil
        case S_IFDIR: return "The path \"\(path)\" is a directory, not the daemon's socket."
        case S_IFREG: return "The path \"\(path)\" is a regular file, not a socket."
        case S_IFIFO: return "The path \"\(path)\" is a FIFO, not a socket."
        case S_IFCHR, S_IFBLK: return "The path \"\(path)\" is a device, not a socket."
        default: return "The path \"\(path)\" is not a socket."
        }
    }

    deinit { close(descriptor) }

    /// Makes each read and write give up after `limit` without progress (`setsockopt(2)` with
    /// `SO_RCVTIMEO` and `SO_SNDTIMEO`): `readSome` and `writeAll` then fail and `timedOut` is set.
    func limitWaits(to limit: Duration) {
        let (seconds, attoseconds) = limit.components
        let microseconds = max(1, Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
        var interval = timeval(tv_sec: microseconds / 1_000_000, tv_usec: microseconds % 1_000_000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, size)
        waitLimit = limit
    }

    /// Writes every byte with `send(2)` and `MSG_NOSIGNAL`, so that a daemon gone away is an
    /// error (EPIPE) rather than a SIGPIPE that would end the app.
    func writeAll(_ bytes: [UInt8]) throws(WardenClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                if let limit = waitLimitReached() {
                    throw WardenClientError(
                        .connection,
                        "The appwarden socket \"\(path)\" took no more of the request for \(limit.secondsText).")
                }
                throw Self.failure("write to the appwarden socket \"\(path)\"")
            }
            offset += written
        }
    }

    /// Reads what is available with `read(2)`, blocking until something is; empty at end of stream.
    func readSome(maximum: Int = 65_536) throws(WardenClientError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, maximum) }
            if count >= 0 { return Array(buffer[..<count]) }
            if errno == EINTR { continue }
            if let limit = waitLimitReached() {
                throw WardenClientError(
                    .connection, "Nothing came from the appwarden socket \"\(path)\" for \(limit.secondsText).")
            }
            throw Self.failure("read from the appwarden socket \"\(path)\"")
        }
    }

    /// The limit, when the call that just failed gave up at it (`EAGAIN` under `SO_RCVTIMEO`
    /// or `SO_SNDTIMEO`); notes it in `timedOut`.
    private func waitLimitReached() -> Duration? {
        guard let waitLimit, errno == EAGAIN || errno == EWOULDBLOCK else { return nil }
        timedOut = true
        return waitLimit
    }

    /// Shuts the connection down with `shutdown(2)`, which wakes a blocked `readSome`.
    func shutDown() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    private static func failure(_ what: String) -> WardenClientError {
        let reason = String(cString: strerror(errno))
        return WardenClientError(.connection, "Could not \(what): \(reason).")
    }
}
