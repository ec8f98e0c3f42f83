import Hummingbird
public import Logging
import Synchronization
import WardenAPI
import WardenCore

#if canImport(Glibc)
    public import Glibc
#endif

/// The control API: HTTP/1.1 with JSON bodies over a Unix domain socket.
///
/// Every request is attributed to the process at the other end of the connection, read with
/// `SO_PEERCRED` and turned into a `CallerIdentity` by `WardenControl.identify(_:)`. Operator
/// verbs need an operator; an app's process may make only its own app's calls and read only its
/// own events. Every refusal is a JSON `APIErrorBody` with a sentence; `docs/openapi.yaml`
/// describes the routes.
public struct ControlServer: Sendable {
    /// Bodies larger than this are refused with 413 before they are read whole: the largest
    /// body is a push's payload, which the policy may allow up to this size.
    static let maximumBodyBytes = PushSettings.payloadLimitBytes

    let control: any WardenControl
    let socketPath: String
    let adminGroup: gid_t?
    let logger: Logger
    let onListening: @Sendable () async -> Void
    /// How often an idle event stream sends a heartbeat comment.
    let heartbeat: Duration
    /// The app list's entries as last encoded, the time remaining written in at each request.
    let appListEncodings = KeptEncodings<AppInfo>.Shared(
        countdown: .init(member: \.timeRemainingMillis, key: "timeRemainingMillis"))

    /// Creates a server for `control` on `socketPath`.
    ///
    /// - Parameters:
    ///   - control: The daemon the server translates requests for.
    ///   - socketPath: Where the socket is created (mode 0660).
    ///   - adminGroup: The group the socket is given, so that its members may connect.
    ///   - logger: Where the server logs.
    ///   - onListening: Called once the socket accepts connections with its mode set.
    ///   - heartbeat: How often an idle event stream sends a comment line, so that a client
    ///     that went away is noticed and its subscription ended.
    public init(
        control: any WardenControl, socketPath: String, adminGroup: gid_t?,
        logger: Logger = Logger(label: "appwarden.control"),
        onListening: @escaping @Sendable () async -> Void = {},
        heartbeat: Duration = .seconds(15)
    ) {
        self.control = control
        self.socketPath = socketPath
        self.adminGroup = adminGroup
        self.logger = logger
        self.onListening = onListening
        self.heartbeat = heartbeat
    }

    /// Serves until the surrounding task is cancelled, then returns.
    ///
    /// A socket file left behind by a daemon that no longer runs is removed first; a socket that
    /// still answers, or a path that is not a socket, is an error. At the end only the socket file
    /// this server created is removed (the same device and inode as at bind time), never one
    /// that another process put in its place.
    public func run() async throws {
        try SocketFile.prepare(path: socketPath)
        let path = socketPath
        let group = adminGroup
        let logger = logger
        let onListening = onListening
        let created = Mutex<SocketFile.Identity?>(nil)
        do {
            try await HTTPService.run(
                router: makeRouter(), address: .unixDomainSocket(path: socketPath),
                logger: Self.frameworkLogger(from: logger)
            ) { _ in
                created.withLock { $0 = SocketFile.identity(path: path) }
                do {
                    try SocketFile.secure(path: path, group: group)
                } catch {
                    logger.error("\(error)")
                }
                await onListening()
            }
        } catch is CancellationError {
            // Cancellation is how the server is asked to stop.
        }
        if let identity = created.withLock({ $0 }) {
            SocketFile.remove(path: path, ifStill: identity)
        }
    }

    /// The logger handed to Hummingbird: only critical messages. Its routine messages (the
    /// listening line, the end of the accept loop on cancellation, which it reports as an error)
    /// would only repeat or contradict the daemon's own; failures to bind are thrown, and the
    /// server logs failed requests itself.
    static func frameworkLogger(from logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = .critical
        return quiet
    }
}
