/// The pure, synchronous lifecycle core (DESIGN §2).
///
/// It owns the model of every app and decides everything in DESIGN §1. It never reads a
/// clock, a file or a process: each input is a `LifecycleEvent` with the time it happened,
/// and each effect is a `LifecycleAction` the caller carries out.
///
/// Every event finds its app in constant time (a dictionary of names into an array of
/// records); only a critical memory level looks at every app, to choose one victim.
public struct Lifecycle: Sendable {
    public private(set) var policy: Policy

    /// The journal's app name for records that concern no single app (a kill with no victim).
    public static let systemJournalName = "appwarden"

    /// Every app ever declared, in declaration order; removed apps stay (marked) for runtime facts.
    var records: [AppRecord] = []
    /// Each record's policy entry (the last one it had, once removed), at the same index.
    var appPolicies: [AppPolicy] = []
    var indexByName: [String: Int] = [:]
    /// Indices of the apps in the foreground, least recently used first.
    var foreground: [Int] = []
    var isLocked = false
    var isOverlaid = false
    var isStarted = false
    /// Actions of the start that a refused first event could not return; returned next time.
    var deferredActions: [LifecycleAction] = []
    var fetchScheduler = FetchScheduler()
    var pushRouter: PushRouter
    var memoryTracker: MemoryLevelTracker
    /// The device's memory as the last sample gave it, in bytes; nil before the first sample.
    /// Percentages of the policy's per-app bounds resolve against it.
    var deviceMemory: Int64?
    /// Whether the killer has journaled, while the level holds, that nobody may be killed.
    var reportedNoVictim = false
    /// Whether the last memory sample said the device has swap (then suspended apps are compressed).
    var deviceHasSwap = false
    /// Apps killed for memory whose process has not been reported ended yet: the memory they
    /// give back is on its way (rule 9, `MemorySettings.victimExitWait`).
    var dyingVictims: [DyingVictim] = []
    /// The room the last memory kill made, until the level is normal again (rule 9, the culprit
    /// who takes the room).
    var roomGivenBack: RoomGivenBack?
    /// What could still be freed without killing at the last memory sample (available memory
    /// plus what swap could still take), in bytes; nil before the first sample. Fetch wakes are
    /// weighed against it (rule 4, `Lifecycle.memoryRefusesWake`).
    var lastEffectiveAvailable: Int64?
    /// The part of `lastEffectiveAvailable` that only swapping frees (`SwapFigures.headroom`),
    /// less what room before a launch has since asked compression to free, in bytes; 0 without
    /// swap. Less than nothing once compression was asked to fill the swap that dying victims
    /// free (`Lifecycle.roomFromDyingVictims(swap:)`, counted apart).
    var lastSwapHeadroom: Int64 = 0
    /// The swap figures of the last memory sample; nil before one, or without swap.
    var lastSwap: SwapFigures?

    /// A core for `policy` whose device tokens come from `tokenSource` (the daemon passes
    /// `.systemRandom`; the default keeps simulations reproducible).
    public init(policy: Policy, tokenSource: DeviceTokenSource = .deterministic) {
        self.policy = policy
        self.pushRouter = PushRouter(tokenSource: tokenSource)
        self.memoryTracker = MemoryLevelTracker(settings: policy.memory)
        records.reserveCapacity(policy.apps.count)
        for app in policy.apps where indexByName[app.name] == nil {
            indexByName[app.name] = records.count
            records.append(AppRecord(policy: app))
            appPolicies.append(app)
            resolveMemoryBounds(records.count - 1)
        }
    }

    /// Plans the first background fetches, counting from `now`, of the apps that have no wake
    /// planned (a core restored from a checkpoint keeps the wakes it had).
    ///
    /// `handle(_:at:)` calls it on the first event if nobody did; a runtime that starts at a
    /// known time may call it first so that intervals count from that time.
    public mutating func start(at now: Instant) -> [LifecycleAction] {
        guard !isStarted else { return [] }
        isStarted = true
        var out: [LifecycleAction] = []
        for index in records.indices where records[index].wantsFetch && records[index].timers[.fetchWake] == nil {
            planFetch(index, at: now, &out)
        }
        restoreCPUClasses(at: now, &out)
        return out
    }

    /// Applies one event at `now` and returns the effects to carry out, in order.
    ///
    /// Throws when the event is refused (unknown app, a call the state does not allow,
    /// an oversize payload, a stale token); a refused event changes nothing.
    public mutating func handle(_ event: LifecycleEvent, at now: Instant) throws(LifecycleError) -> [LifecycleAction] {
        var out: [LifecycleAction] = []
        out.reserveCapacity(8)
        if !isStarted {
            deferredActions = start(at: now)
        }
        if !deferredActions.isEmpty {
            out = deferredActions
        }
        try dispatch(event, at: now, &out)
        deferredActions.removeAll()
        return out
    }

    /// Applies one event at `now`, as `handle(_:at:)` does, and returns with its actions what
    /// the runtime journals of it: the event in its replayable form, whether it ended a process
    /// on its own and the killer's candidates, both as they were before it was handled. The
    /// daemon's one call per event.
    ///
    /// Throws when the event is refused; a refused event changes nothing.
    public mutating func take(_ event: LifecycleEvent, at now: Instant) throws(LifecycleError) -> HandledEvent {
        let ownEnd = endsOnItsOwn(event)
        let candidates = killCandidates(before: event)
        let actions = try handle(event, at: now)
        return HandledEvent(
            actions: actions, replayable: replayable(event), endsOnItsOwn: ownEnd, candidates: candidates)
    }

    /// The app's current device token, nil when it has none (it never called `register-push`
    /// since its last install). Tokens persist in `checkpoint(at:)`.
    public func deviceToken(of app: String) -> String? {
        pushRouter.currentToken(for: app)
    }

    /// `event` as a replay of it needs it: a push to a device token (the daemon's own random
    /// number) as a push to the app that owns it; other events as they are (`take(_:at:)`).
    func replayable(_ event: LifecycleEvent) -> LifecycleEvent {
        guard case .push(.token(let token), let payload, let id) = event, case .app(let app) = deviceTokenOwner(token)
        else { return event }
        return .push(target: .app(app), payload: payload, id: id)
    }

    /// Which app a device token addresses: its current owner, a stale owner (reinstalled since)
    /// or unknown.
    public func deviceTokenOwner(_ token: String) -> PushRouter.TokenLookup {
        pushRouter.lookup(token: token)
    }

    /// The device's memory pressure level now, as the checkpoint records it.
    public var pressureLevel: PressureLevel { memoryTracker.level }

    /// The current state of `app`; nil when the policy does not declare it.
    public func state(of app: String) -> AppState? {
        guard let index = indexByName[app], records[index].inPolicy else { return nil }
        return records[index].state
    }

    /// The apps of the policy that are running, in declaration order; suspended ones only if
    /// `includingSuspended`. What the memory watch measures before a sample that may kill, read
    /// off the records in place: beside a thousand suspended apps, a few names.
    public func runningApps(includingSuspended: Bool) -> [String] {
        var names: [String] = []
        for index in records.indices where records[index].inPolicy {
            switch records[index].state {
            case .notRunning: continue
            case .suspended where !includingSuspended: continue
            default: names.append(records[index].name)
            }
        }
        return names
    }

    /// The apps of the policy in `state`, in declaration order, read off the records in place,
    /// each with its place in that order (which stays the app's while the policy does not
    /// change, whichever apps come into or leave the state).
    public func apps(in state: AppState) -> [(place: Int, name: String)] {
        var apps: [(place: Int, name: String)] = []
        for index in records.indices where records[index].inPolicy && records[index].state == state {
            apps.append((index, records[index].name))
        }
        return apps
    }

    /// How many times the user opened an app of the policy after the device had killed it
    /// (cold launches), over every app.
    public var coldLaunchCount: Int {
        records.indices.reduce(0) { $0 + (records[$1].inPolicy ? records[$1].coldLaunches ?? 0 : 0) }
    }

    /// The footprint of `app`, the part of it in swap and the RAM that part takes as the core
    /// last heard them (zero for an app that is not running); nil when the policy does not
    /// declare it. What `status` shows of them, without the rest of a snapshot.
    public func footprint(of app: String) -> (bytes: Int64, swapped: Int64, swappedInRAM: Int64)? {
        guard let index = indexByName[app], records[index].inPolicy else { return nil }
        guard records[index].isRunning else { return (0, 0, 0) }
        return (records[index].footprint, records[index].swappedBytes, records[index].swappedInRAM)
    }

    private mutating func dispatch(
        _ event: LifecycleEvent, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        switch event {
        case .open(let app): try open(app, at: now, &out)
        case .home: home(at: now, &out)
        case .overlay: overlay(at: now, &out)
        case .overlayEnd: overlayEnd(at: now, &out)
        case .lock: lock(at: now, &out)
        case .unlock: unlock(at: now, &out)
        case .forceQuit(let app): try forceQuit(app, at: now, &out)
        case .reset(let app): try reset(app, at: now, &out)
        case .push(let target, let payload, let id): try push(to: target, payload: payload, id: id, at: now, &out)
        case .accessory(let action, let properties): accessoryEvent(action, properties: properties, at: now, &out)
        case .ready(let app): try ready(app, at: now, &out)
        case .beginTask(let app, let name): try beginTask(app, name: name, at: now, &out)
        case .endTask(let app, let taskID): try endTask(app, taskID: taskID, at: now, &out)
        case .beginActivity(let app, let mode): try beginActivity(app, mode: mode, at: now, &out)
        case .endActivity(let app, let id): try endActivity(app, activityID: id, at: now, &out)
        case .timeRemaining(let app): try timeRemaining(app, at: now, &out)
        case .completeFetch(let app, let result): try completeFetch(app, result: result, at: now, &out)
        case .completePush(let app, let result): try completePush(app, result: result, at: now, &out)
        case .completeAccessory(let app): try completeAccessory(app, at: now, &out)
        case .setFetchInterval(let app, let interval): try setFetchInterval(app, interval, at: now, &out)
        case .registerPush(let app): try registerPush(app, &out)
        case .acquire(let app, let resource): try acquire(app, resource: resource, &out)
        case .release(let app, let resource): try release(app, resource: resource, at: now, &out)
        case .reportStatus(let app, let status): try reportStatus(app, status: status, at: now, &out)
        case .timerFired(let timer): timerFired(timer, at: now, &out)
        case .launched(let app, let launch): launched(app, launch: launch, at: now, &out)
        case .processExited(let app, let launch, let end): processExited(app, launch: launch, end: end, at: now, &out)
        case .spawnFailed(let app, let launch, let message):
            spawnFailed(app, launch: launch, message: message, at: now, &out)
        case .heldAtSuspension(let app, let resource): heldAtSuspension(app, resource: resource, at: now, &out)
        case .footprint(let app, let bytes, let swapped, let inRAM):
            try footprint(app, bytes: bytes, swapped: swapped, swappedInRAM: inRAM, at: now, &out)
        case .oomKilled(let app, let launch, let kill): oomKilled(app, launch: launch, kill: kill, at: now, &out)
        case .compressed(let app, let launch, let bytes, let inRAM):
            compressed(app, launch: launch, swappedBytes: bytes, swappedInRAM: inRAM, at: now, &out)
        case .stallMeasured(let app, let launch, let total):
            stallMeasured(app, launch: launch, total: total, at: now, &out)
        case .cpuMeasured(let app, let launch, let usage):
            cpuMeasured(app, launch: launch, usage: usage, at: now, &out)
        case .pressure(let level): pressure(level, at: now, &out)
        case .memorySample(let available, let total, let swap):
            memorySample(available: available, total: total, swap: swap, at: now, &out)
        case .scanResult(let app, let outcome): scanResult(app, outcome: outcome, at: now, &out)
        case .observedFrozen(let app, let frozen): observedFrozen(app, frozen: frozen, at: now, &out)
        case .policyChanged(let newPolicy, let restartChanged):
            policyChanged(newPolicy, restartChanged: restartChanged, at: now, &out)
        }
    }

    /// Replaces the policy (the records are updated by `policyChanged`, which resolves their
    /// memory bounds again).
    mutating func replacePolicy(_ newPolicy: Policy) {
        policy = newPolicy
        memoryTracker.settings = newPolicy.memory
    }
}
