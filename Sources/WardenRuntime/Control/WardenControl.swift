public import WardenAPI
public import WardenCore

/// Who is calling the control API, from `SO_PEERCRED`.
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// What a caller may do.
public enum CallerIdentity: Sendable, Equatable {
    /// Root or a member of the socket's group: every operator verb, every app's calls and events.
    case `operator`
    /// A process in app NAME's group: only NAME's app calls and events.
    case app(String)
    /// Anyone else; the sentence says why.
    case denied(String)
}

/// What the control server asks of the daemon. `DaemonControl` (`WardenDaemon.control`) implements
/// it; the server only translates HTTP to these calls and their answers to HTTP.
public protocol WardenControl: Sendable {
    /// Identifies a caller: root or the socket's group → operator; a pid in app X's group → app(X).
    func identify(_ peer: PeerCredentials) async -> CallerIdentity
    /// Applies an operator verb or app call now; returns the core's reply, if the call has one.
    func perform(_ event: LifecycleEvent) async throws(LifecycleError) -> Reply?
    /// Every app of the policy, in policy order; throws `.unavailable` once the daemon is stopping.
    func apps() async throws(LifecycleError) -> [AppInfo]
    /// One app; nil when the policy has no such app; throws `.unavailable` once the daemon is
    /// stopping (its apps are still declared then: "no such app" would be wrong).
    func appInfo(named name: String) async throws(LifecycleError) -> AppInfo?
    /// Journal records matching the query, oldest first.
    func journal(_ query: JournalQuery) async throws -> [JournalEntry]
    /// Why the app is in its state (throws .notFound for an unknown app).
    func explain(app: String) async throws(LifecycleError) -> Explanation
    /// A live stream of new journal records (and messages to apps), optionally of one app only;
    /// throws `.unavailable` once the daemon is stopping.
    func subscribe(app: String?) async throws(LifecycleError) -> AsyncStream<JournalEntry>
    /// Re-reads the policy file; a bad file is refused whole (the error lists every problem)
    /// and the running policy stays in force. The answer lists the apps added, removed and
    /// changed; `restartChanged` restarts running apps whose launch settings changed now.
    func reloadPolicy(restartChanged: Bool) async throws -> ControlReplies.PolicyReloaded
    /// Device memory, the pressure level, its thresholds and the last kills (throws
    /// `.unavailable` while the daemon is stopping).
    func device() async throws(LifecycleError) -> DeviceInfo
    func health() async -> Health
    /// The metrics in the Prometheus text format (`GET /metrics`); nil where none are kept
    /// (throws `.unavailable` while the daemon is stopping).
    func metricsExposition() async throws(LifecycleError) -> String?
    /// Where the control server counts its requests; nil where no metrics are kept.
    var metricsSource: WardenMetrics? { get }
}
