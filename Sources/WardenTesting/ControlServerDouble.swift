public import WardenAPI
public import WardenCore
public import WardenRuntime

/// A `WardenControl` for the control server's tests: the real lifecycle core on a virtual clock
/// (one second per event), a journal in memory, an identity the test chooses, and a record of
/// every caller and every event it was asked to apply.
public actor ControlServerDouble: WardenControl {
    private var lifecycle: Lifecycle
    private var now = Instant(sinceOrigin: .zero)
    private var journalEntries: [JournalEntry] = []
    private var subscribers: [(app: String?, continuation: AsyncStream<JournalEntry>.Continuation)] = []
    /// What `identify` answers.
    public private(set) var identity: CallerIdentity = .operator
    /// Every peer the server identified, in order.
    public private(set) var peers: [PeerCredentials] = []
    /// Every event the core accepted, in order.
    public private(set) var accepted: [LifecycleEvent] = []
    /// What `reloadPolicy` throws, if anything.
    public private(set) var reloadError: (any Error)?

    /// Makes a double whose policy has `apps`, each allowed background fetch and remote notifications.
    public init(apps: [String]) {
        let policy = Policy(
            apps: apps.map { AppPolicy(name: $0, backgroundModes: [.fetch, .remoteNotification, .audio]) })
        lifecycle = Lifecycle(policy: policy)
    }

    /// Makes `identify` answer `identity` from now on.
    public func setIdentity(_ identity: CallerIdentity) {
        self.identity = identity
    }

    /// Makes `reloadPolicy` throw `error` from now on.
    public func setReloadError(_ error: any Error) {
        reloadError = error
    }

    public func identify(_ peer: PeerCredentials) async -> CallerIdentity {
        peers.append(peer)
        return identity
    }

    public func perform(_ event: LifecycleEvent) async throws(LifecycleError) -> Reply? {
        now = now + .seconds(1)
        let actions = try lifecycle.handle(event, at: now)
        accepted.append(event)
        var reply: Reply?
        for action in actions {
            switch action {
            case .reply(let answer):
                reply = answer
            case .journal(let record):
                append(app: record.app, AppEvent(record.kind))
            default:
                break
            }
        }
        return reply
    }

    /// Appends `event` to the double's journal, as the daemon journals what is not a core record.
    public func record(app: String, _ event: AppEvent) {
        append(app: app, event)
    }

    private func append(app: String, _ event: AppEvent) {
        let entry = JournalEntry(
            id: Int64(journalEntries.count + 1), app: app,
            wallTimeMillis: 1_700_000_000_000 + Int64(journalEntries.count), event: event)
        journalEntries.append(entry)
        for subscriber in subscribers where subscriber.app == nil || subscriber.app == app {
            subscriber.continuation.yield(entry)
        }
    }

    public func apps() async throws(LifecycleError) -> [AppInfo] {
        lifecycle.snapshots(at: now).map(Self.info)
    }

    public func appInfo(named name: String) async throws(LifecycleError) -> AppInfo? {
        app(named: name)
    }

    /// One app; nil when the policy has no such app.
    public func app(named name: String) -> AppInfo? {
        lifecycle.snapshot(of: name, at: now).map(Self.info)
    }

    private static func info(_ snapshot: AppSnapshot) -> AppInfo {
        AppInfo(
            name: snapshot.name, state: AppInfo.State(snapshot.state), status: AppInfo.Status(snapshot.status),
            footprintBytes: snapshot.footprint, swappedBytes: snapshot.swappedBytes,
            reclaimableBytes: snapshot.reclaimableBytes, band: snapshot.band.map(AppInfo.Band.init),
            openTasks: snapshot.openTasks.map { TaskInfo(id: $0.id, name: $0.name) },
            activities: snapshot.activities.map { ActivityInfo(id: $0.id, mode: $0.mode.rawValue) },
            heldResources: snapshot.heldResources, forceQuit: snapshot.isForceQuit,
            hasPreservedState: snapshot.hasPreservedState, cpuClass: snapshot.cpuClass?.rawValue,
            backgroundCPUPercent: snapshot.backgroundCPUPercent, coldLaunches: snapshot.coldLaunches)
    }

    public func journal(_ query: JournalQuery) async throws -> [JournalEntry] {
        let matching = journalEntries.filter(query.matches)
        return Array(query.newest ? matching.suffix(query.limit) : matching.prefix(query.limit))
    }

    public func explain(app: String) async throws(LifecycleError) -> Explanation {
        guard let state = lifecycle.state(of: app) else {
            throw LifecycleError.unknownApp(app)
        }
        let sentences = journalEntries.filter { $0.app == app }.compactMap { entry -> String? in
            guard case .stateChange(_, let to, let because) = entry.event else { return nil }
            return "It became \(to.rawValue) because \(because)."
        }
        return Explanation(app: app, state: AppInfo.State(state), sentences: sentences)
    }

    public func subscribe(app: String?) async throws(LifecycleError) -> AsyncStream<JournalEntry> {
        let (stream, continuation) = AsyncStream.makeStream(of: JournalEntry.self)
        let ended = endedSubscriptions
        continuation.onTermination = { _ in ended.increment() }
        subscribers.append((app, continuation))
        return stream
    }

    /// How many live subscriptions ended (their stream was dropped or cancelled).
    public nonisolated let endedSubscriptions = SubscriptionCounter()

    /// How many live subscriptions were opened.
    public var subscriptionCount: Int { subscribers.count }

    public func reloadPolicy(restartChanged: Bool) async throws -> ControlReplies.PolicyReloaded {
        if let reloadError { throw reloadError }
        return ControlReplies.PolicyReloaded(
            message: "The policy with \(lifecycle.policy.apps.count) apps is in force.")
    }

    public func device() async throws(LifecycleError) -> DeviceInfo {
        DeviceInfo(pressure: lifecycle.memoryLevel.rawValue, coldLaunches: lifecycle.coldLaunchCount)
    }

    /// The metrics of the double's core (no device memory, no counters moved).
    public func metricsExposition() async throws(LifecycleError) -> String? {
        WardenMetrics().exposition(
            of: WardenMetrics.Reading(
                apps: lifecycle.snapshots(at: now), level: lifecycle.memoryLevel, memory: lifecycle.policy.memory,
                device: nil))
    }

    public nonisolated var metricsSource: WardenMetrics? { nil }

    public func health() async -> Health {
        Health(
            ok: true, version: "test", policy: "test.toml", apps: lifecycle.policy.apps.count, pressure: "normal",
            cgroupLayout: "none", dryRun: true)
    }
}
