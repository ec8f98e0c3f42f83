#if canImport(Glibc)
    public import Glibc
#elseif canImport(Musl)
    public import Musl
#endif

/// What `appwarden serve` serves besides the daemon itself: the control socket (whose group may
/// use operator verbs), the optional metrics listener, and the service manager's notifications.
public struct DaemonServing: Sendable {
    /// The group whose members may use operator verbs on the socket.
    public var adminGroup: gid_t?
    /// `HOST:PORT` of the read-only metrics listener; nil for none.
    public var metricsAddress: (host: String, port: Int)?
    /// `READY=1`, `STOPPING=1`, `STATUS=` and `WATCHDOG=1` to the service manager.
    public var notifier: SystemdNotifier

    public init(adminGroup: gid_t?, metricsAddress: (host: String, port: Int)?, notifier: SystemdNotifier) {
        self.adminGroup = adminGroup
        self.metricsAddress = metricsAddress
        self.notifier = notifier
    }
}
