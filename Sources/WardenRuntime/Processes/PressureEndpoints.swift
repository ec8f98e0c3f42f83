import Dispatch
import FoundationEssentials
import Logging
import Synchronization
import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Each running app's memory-pressure endpoint, in the convention systemd (254 and later) and
/// sd-event define for services: the app finds a path in `MEMORY_PRESSURE_WATCH`, and
/// `sd_event_add_memory_pressure`, or any code that follows the convention, connects to it when it
/// is a Unix socket and takes whatever it reads as a memory-pressure event. Here the path is a
/// Unix stream socket per app; each of the app's processes may connect, and every memory warning
/// the core delivers to the app writes one line, `memory-warning`, to every connection.
/// `MEMORY_PRESSURE_WRITE` is set empty: there is no PSI trigger to write.
///
/// An app's socket is made when it is launched (owned by the app's user) and removed when its
/// process ends or its launch fails. A daemon that restarts makes the sockets of the apps it
/// re-adopts again, which their processes must connect to again (sd-event stops watching a socket
/// that hangs up), and removes the sockets left in the folder for apps that are not running.
final class PressureEndpoints: Sendable {
    /// The folder the sockets are made in.
    let directory: String
    private let endpoints = Mutex<[String: Endpoint]>([:])
    private let queue = DispatchQueue(label: "appwarden.pressure-endpoints")

    /// Its dispatch source is safe to use from any thread; the rest is immutable or locked.
    private final class Endpoint: @unchecked Sendable {
        let path: String
        let listener: Int32
        let source: any DispatchSourceRead
        /// The open connections; nil once the endpoint is closed.
        let connections = Mutex<[Int32]?>([])

        init(path: String, listener: Int32, source: any DispatchSourceRead) {
            self.path = path
            self.listener = listener
            self.source = source
        }
    }

    /// The line every connection receives at each memory warning.
    static let warningLine = Array("memory-warning\n".utf8)

    init(directory: String) {
        self.directory = directory
    }

    /// The socket path of `app`'s endpoint.
    func path(of app: String) -> String {
        directory + "/" + app + ".sock"
    }

    /// Makes `app`'s socket (again, if it had one), owned by `owner` when given, and listens on
    /// it. Returns its path, or throws a sentence that says why it could not be made.
    func open(app: String, owner: (uid: uid_t, gid: gid_t)?) throws(PressureEndpointError) -> String {
        close(app: app)
        let path = path(of: app)
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw PressureEndpointError("the path \"\(path)\" is too long for a Unix socket")
        }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw PressureEndpointError("could not make the folder \"\(directory)\": \(error)")
        }
        unlink(path)
        let flags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        let listener = socket(AF_UNIX, flags, 0)
        guard listener >= 0 else { throw PressureEndpointError("socket() failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, chmod(path, 0o600) == 0, listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(listener)
            unlink(path)
            throw PressureEndpointError("could not listen on \"\(path)\": \(reason)")
        }
        if let owner, chown(path, owner.uid, owner.gid) != 0 {
            let reason = String(cString: strerror(errno))
            Glibc.close(listener)
            unlink(path)
            throw PressureEndpointError("could not give \"\(path)\" to the app's user: \(reason)")
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
        let endpoint = Endpoint(path: path, listener: listener, source: source)
        source.setEventHandler { [weak endpoint] in
            guard let endpoint else { return }
            while true {
                let connection = accept(endpoint.listener, nil, nil)
                guard connection >= 0 else { break }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
                let kept = endpoint.connections.withLock { connections -> Bool in
                    guard connections != nil else { return false }
                    connections?.append(connection)
                    return true
                }
                if !kept { Glibc.close(connection) }
            }
        }
        source.setCancelHandler { Glibc.close(listener) }
        endpoints.withLock { $0[app] = endpoint }
        source.resume()
        return path
    }

    /// Writes the warning line to every connection of `app`'s endpoint, without waiting: a
    /// connection whose reader went away is closed, one whose reader lags loses the line.
    /// Returns how many connections it reached.
    @discardableResult
    func warn(app: String) -> Int {
        guard let endpoint = endpoints.withLock({ $0[app] }) else { return 0 }
        return endpoint.connections.withLock { connections in
            var reached = 0
            connections?.removeAll { connection in
                let written = Self.warningLine.withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if written > 0 {
                    reached += 1
                    return false
                }
                if errno == EAGAIN || errno == EWOULDBLOCK { return false }
                Glibc.close(connection)
                return true
            }
            return reached
        }
    }

    /// How many connections `app`'s endpoint has accepted and not closed.
    func connectionCount(app: String) -> Int {
        endpoints.withLock { $0[app] }?.connections.withLock { $0?.count } ?? 0
    }

    /// Closes `app`'s endpoint and its connections, and removes its socket.
    func close(app: String) {
        guard let endpoint = endpoints.withLock({ $0.removeValue(forKey: app) }) else { return }
        unlink(endpoint.path)
        for connection in endpoint.connections.withLock({ connections in
            defer { connections = nil }
            return connections ?? []
        }) {
            Glibc.close(connection)
        }
        endpoint.source.cancel()
    }

    /// Removes the sockets in the folder that no endpoint here listens on: left by a daemon that
    /// ended without removing them, or by a launch that failed. Returns the apps they were named
    /// for. Only sockets named `APP.sock` are touched.
    func removeStale() -> [String] {
        let listening = endpoints.withLock { Set($0.keys) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where name.hasSuffix(".sock") {
            let app = String(name.dropLast(5))
            let path = directory + "/" + name
            // The type of the path itself, a link not followed.
            let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
            guard !listening.contains(app), type == .typeSocket, unlink(path) == 0 else { continue }
            removed.append(app)
        }
        return removed
    }

    /// Closes every endpoint, and removes the folder when nothing else is in it.
    func closeAll() {
        for app in endpoints.withLock({ Array($0.keys) }) { close(app: app) }
        rmdir(directory)
    }
}

/// Why an app's memory-pressure endpoint could not be made, in words.
struct PressureEndpointError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension PressureEndpoints {
    /// Makes `app`'s memory-pressure socket for a launch, owned by the app's user; returns its
    /// path for `MEMORY_PRESSURE_WATCH`, or nil when it could not be made (said in the log; the
    /// app then runs without one).
    func open(app: String, user: String?, logger: Logger) -> String? {
        let owner = user.flatMap { SpawnRequest.User.policy($0).ids }
        do {
            return try open(app: app, owner: owner)
        } catch {
            logger.warning("App \"\(app)\" gets no memory-pressure socket (MEMORY_PRESSURE_WATCH): \(error).")
            return nil
        }
    }
}
