/// A copy of the core's model that survives a restart of the runtime (re-adoption).
///
/// Every instant is stored as milliseconds relative to the moment of the checkpoint, so the
/// runtime can map it onto a new clock: it restores with the instant that moment has on the
/// new clock (`now` minus the wall-clock time elapsed since the checkpoint). Every armed timer
/// keeps its absolute deadline, so one that fell due while nothing ran fires at once. The fetch
/// plans (stretch factors, the wakes intervals count from, planned wakes) and the push
/// bookkeeping (tokens, delivered ids, coalesced and held pushes, the hour's wake slots) are
/// kept with their timers.
public struct LifecycleCheckpoint: Codable, Sendable, Equatable {
    /// One app's record.
    public struct App: Codable, Sendable, Equatable {
        public struct Task: Codable, Sendable, Equatable {
            public var id: Int
            public var name: String
        }

        public var name: String
        public var state: String
        public var launch: Int
        public var launchTime: Int64
        public var launchRestored: Bool
        public var launchedPassively: Bool
        public var activeSinceLaunch: Bool
        public var awaitingReady: Bool
        /// The pending `$AppStart`: nil, or whether it is cold and after a passive launch.
        public var pendingStartCold: Bool?
        public var pendingStartAfterPassive: Bool?
        public var terminating: String?
        public var foregroundSince: Int64
        public var lastUsed: Int64
        public var everInForeground: Bool
        public var tasks: [Task]
        public var nextTaskID: Int
        public var budgetSession: Bool
        public var budgetRemainingMillis: Int64
        public var budgetMark: Int64?
        public var fetchWindowOpen: Bool
        public var pushWindowOpen: Bool
        public var heldResources: [String]
        public var isForceQuit: Bool
        /// The system termination that blocks wakes until the app is opened; nil when none
        /// does (and in checkpoints that predate it).
        public var wakeBlockedBy: String? = nil
        public var hasPreservedState: Bool
        public var lastTerminationWasSystem: Bool
        public var requestedFetchInterval: String
        public var deliveredPushIDs: [String]
        public var footprint: Int64
        public var lastMemoryWarning: Int64?
        public var lastBand: Int?
        public var lastScore: Int?
        public var publishedStatus: Int
        public var believedStatus: Int
        /// Armed timers by kind name, each relative to the checkpoint.
        public var timers: [String: Int64]
    }

    public var apps: [App]
    /// Apps in the foreground, least recently used first.
    public var foreground: [String]
    public var isLocked: Bool
    public var isOverlaid: Bool
    /// The memory level at the checkpoint.
    public var pressure: String
    /// The push bookkeeping, wake times relative to the checkpoint; nil in checkpoints that
    /// predate it (their pushes start afresh).
    public var pushes: PushRouter.State? = nil
    /// The fetch plans, times relative to the checkpoint; nil in checkpoints that predate them
    /// (their fetch wakes are planned afresh from the restore).
    public var fetches: FetchScheduler.State? = nil
}

extension Lifecycle {
    /// The model at `now`, for a later `init(policy:checkpoint:at:)`.
    public func checkpoint(at now: Instant) -> LifecycleCheckpoint {
        func relative(_ instant: Instant) -> Int64 { Self.milliseconds(instant - now) }
        var apps: [LifecycleCheckpoint.App] = []
        apps.reserveCapacity(records.count)
        for record in records where record.inPolicy {
            var timers: [String: Int64] = [:]
            for kind in TimerID.Kind.allCases {
                if let deadline = record.timers[kind] { timers[kind.rawValue] = relative(deadline) }
            }
            var cold: Bool?
            var afterPassive: Bool?
            if case .appStart(let isCold, let isAfterPassive)? = record.pendingStart {
                cold = isCold
                afterPassive = isAfterPassive
            }
            apps.append(
                LifecycleCheckpoint.App(
                    name: record.name, state: record.state.rawValue, launch: record.launch,
                    launchTime: relative(record.launchTime), launchRestored: record.launchRestored,
                    launchedPassively: record.launchedPassively, activeSinceLaunch: record.activeSinceLaunch,
                    awaitingReady: record.awaitingReady, pendingStartCold: cold, pendingStartAfterPassive: afterPassive,
                    terminating: record.terminating?.rawValue, foregroundSince: relative(record.foregroundSince),
                    lastUsed: relative(record.lastUsed), everInForeground: record.everInForeground,
                    tasks: record.tasks.map { LifecycleCheckpoint.App.Task(id: $0.id, name: $0.name) },
                    nextTaskID: record.nextTaskID, budgetSession: record.budgetSession,
                    budgetRemainingMillis: Self.milliseconds(record.budgetRemaining),
                    budgetMark: record.budgetMark.map(relative), fetchWindowOpen: record.fetchWindowOpen,
                    pushWindowOpen: record.pushWindowOpen, heldResources: record.heldResources,
                    isForceQuit: record.isForceQuit, wakeBlockedBy: wakeBlockReason(record.wakeBlock),
                    hasPreservedState: record.hasPreservedState,
                    lastTerminationWasSystem: record.lastTerminationWasSystem,
                    requestedFetchInterval: record.requestedFetchInterval.description,
                    deliveredPushIDs: record.deliveredPushIDs.sorted(), footprint: record.footprint,
                    lastMemoryWarning: record.lastMemoryWarning.map(relative), lastBand: record.lastBand?.rawValue,
                    lastScore: record.lastScore, publishedStatus: record.publishedStatus.rawValue,
                    believedStatus: record.believedStatus.rawValue, timers: timers))
        }
        return LifecycleCheckpoint(
            apps: apps, foreground: foreground.map { records[$0].name }, isLocked: isLocked, isOverlaid: isOverlaid,
            pressure: memoryTracker.level.rawValue, pushes: pushRouter.state(relativeTo: now),
            fetches: fetchScheduler.state(relativeTo: now))
    }

    /// A core for `policy` that continues from `checkpoint`, whose moment is `then` on the new clock.
    ///
    /// Apps the policy no longer declares are left out; values that cannot be read fall back to
    /// a fresh app's. Every armed timer, fetch wakes included, is kept at its deadline and listed
    /// by `armedTimers()` so the runtime re-arms it; apps without a planned wake (new in the
    /// policy) are planned at the first event (or `start(at:)`).
    ///
    /// Device tokens (current and stale) come back from the checkpoint; new ones come from
    /// `tokenSource`.
    public init(
        policy: Policy, checkpoint: LifecycleCheckpoint, at then: Instant,
        tokenSource: DeviceTokenSource = .deterministic
    ) {
        self.init(policy: policy, tokenSource: tokenSource)
        func instant(_ millis: Int64) -> Instant { then + .milliseconds(millis) }
        for app in checkpoint.apps {
            guard let index = indexByName[app.name] else { continue }
            var record = records[index]
            record.state = AppState(rawValue: app.state) ?? .notRunning
            record.launch = app.launch
            record.launchTime = instant(app.launchTime)
            record.launchRestored = app.launchRestored
            record.launchedPassively = app.launchedPassively
            record.activeSinceLaunch = app.activeSinceLaunch
            record.awaitingReady = app.awaitingReady
            if let cold = app.pendingStartCold {
                record.pendingStart = .appStart(cold: cold, afterPassive: app.pendingStartAfterPassive ?? false)
            }
            record.terminating = app.terminating.flatMap(TerminationReason.init(rawValue:))
            record.foregroundSince = instant(app.foregroundSince)
            record.lastUsed = instant(app.lastUsed)
            record.everInForeground = app.everInForeground
            record.tasks = app.tasks.map { AppRecord.OpenTask(id: $0.id, name: $0.name) }
            record.nextTaskID = app.nextTaskID
            record.budgetSession = app.budgetSession
            record.budgetRemaining = .milliseconds(app.budgetRemainingMillis)
            record.budgetMark = app.budgetMark.map(instant)
            record.fetchWindowOpen = app.fetchWindowOpen
            record.pushWindowOpen = app.pushWindowOpen
            record.heldResources = app.heldResources
            if app.isForceQuit {
                record.wakeBlock = .forceQuit
            } else if let reason = app.wakeBlockedBy.flatMap(TerminationReason.init(rawValue:)) {
                record.wakeBlock = .systemTermination(reason)
            }
            record.hasPreservedState = app.hasPreservedState
            record.lastTerminationWasSystem = app.lastTerminationWasSystem
            record.requestedFetchInterval =
                FetchInterval(parsing: app.requestedFetchInterval) ?? record.policyFetchInterval
            record.deliveredPushIDs = Set(app.deliveredPushIDs)
            record.footprint = app.footprint
            record.lastMemoryWarning = app.lastMemoryWarning.map(instant)
            record.lastBand = app.lastBand.flatMap(KillBand.init(rawValue:))
            record.lastScore = app.lastScore
            record.publishedStatus = AppStatus(rawValue: app.publishedStatus) ?? .unknown
            record.believedStatus = AppStatus(rawValue: app.believedStatus) ?? .unknown
            for kind in TimerID.Kind.allCases
            where (kind != .fetchWake || checkpoint.fetches != nil) && (kind != .pushSlot || checkpoint.pushes != nil) {
                record.timers[kind] = app.timers[kind.rawValue].map(instant)
            }
            records[index] = record
        }
        foreground = checkpoint.foreground.compactMap { indexByName[$0] }.filter { records[$0].isInForeground }
        if let pushes = checkpoint.pushes {
            pushRouter = PushRouter(state: pushes, relativeTo: then, tokenSource: tokenSource)
        }
        if let fetches = checkpoint.fetches {
            fetchScheduler = FetchScheduler(state: fetches, relativeTo: then)
        }
        isLocked = checkpoint.isLocked
        isOverlaid = checkpoint.isOverlaid
        if let level = PressureLevel(rawValue: checkpoint.pressure) {
            memoryTracker.report(level)
        }
    }

    /// Hands out the device tokens a previous core had handed out, for checkpoints that did not
    /// carry the push bookkeeping: `tokens` maps each app to its current token, which stays
    /// current; the app's earlier tokens are stale. Tokens the core knows already, and those of
    /// unknown apps, are left alone.
    public mutating func restoreDeviceTokens(_ tokens: [String: String]) {
        for (app, token) in tokens.sorted(by: { $0.key < $1.key }) where indexByName[app] != nil {
            pushRouter.adoptToken(token, for: app)
        }
    }

    /// Every armed timer and its deadline, in app order.
    public func armedTimers() -> [(timer: TimerID, deadline: Instant)] {
        var result: [(timer: TimerID, deadline: Instant)] = []
        for record in records {
            for kind in TimerID.Kind.allCases {
                if let deadline = record.timers[kind] {
                    result.append((TimerID(app: record.name, kind: kind), deadline))
                }
            }
        }
        return result
    }

    /// The launch number of every running app.
    public func runningLaunches() -> [(app: String, launch: Int, state: AppState)] {
        records.filter { $0.inPolicy && $0.isRunning }.map { ($0.name, $0.launch, $0.state) }
    }

    private func wakeBlockReason(_ block: WakeBlock?) -> String? {
        guard case .systemTermination(let reason)? = block else { return nil }
        return reason.rawValue
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
