import Testing
import WardenCore
import WardenScenario
import WardenSimulator

/// The core in virtual time, on the simulator's runtime: timers fire in (deadline, arming)
/// order, every spawned process runs at once (an immediate app is then ready; a notify app
/// waits for the test's `ready`), and a process exits as soon as it receives SIGTERM, unless
/// the test made it stubborn. Apps answer no fetch or push window and ignore expiration calls
/// by themselves: the test makes every app call.
struct Harness {
    private(set) var simulator: Simulator

    init(_ policy: Policy, stubborn: Set<String> = []) {
        var facts: [String: AppFacts] = [:]
        for app in policy.apps {
            facts[app.name] = AppFacts(
                onFetch: .never, onPush: .never, onExpiration: .ignore,
                launchTime: app.readiness == .notify ? nil : .zero,
                onTerminate: stubborn.contains(app.name) ? .ignore : .exit)
        }
        simulator = Simulator(scenario: Scenario(name: "harness", policy: policy, facts: facts))
    }

    static func seconds(_ value: Double) -> Instant {
        Instant(sinceOrigin: .milliseconds(Int64(value * 1000)))
    }

    /// The core under test; setting it continues from a core restored from a checkpoint.
    var core: Lifecycle {
        get { simulator.lifecycle }
        set { simulator.continueFrom(newValue) }
    }

    /// The virtual time now.
    var now: Instant { simulator.now }

    /// Fires the due timers up to `seconds`, then delivers `event` at that time; returns every
    /// action produced by the event and the runtime's answers to it.
    @discardableResult
    mutating func send(_ event: LifecycleEvent, at seconds: Double? = nil) throws(LifecycleError) -> [LifecycleAction] {
        if let seconds { advance(to: seconds) }
        let before = simulator.trace.count
        if case .failure(let error) = simulator.send(event) { throw error }
        return Self.actions(in: simulator.trace[before...])
    }

    /// From now on `app`'s processes use `percent` of one CPU while they run (a scenario's `cpu` step).
    mutating func useCPU(_ percent: Int, _ app: String) {
        _ = simulator.apply(ScenarioStep(time: now, verb: .cpu(app: app, percent: percent)))
    }

    /// Fires every timer due at or before `seconds`, in order, and moves the clock there.
    mutating func advance(to seconds: Double) {
        simulator.advance(to: Self.seconds(seconds))
    }

    /// Every action the core returned, in order.
    var actions: [LifecycleAction] { Self.actions(in: simulator.trace[...]) }

    private static func actions(in trace: ArraySlice<TraceEntry>) -> [LifecycleAction] {
        trace.compactMap { entry in
            guard case .action(let action) = entry.kind else { return nil }
            return action
        }
    }

    /// The last launch number of each app that was launched.
    var launches: [String: Int] {
        var launches: [String: Int] = [:]
        for launch in simulator.record.launches { launches[launch.app] = launch.launch }
        return launches
    }

    func state(_ app: String) -> AppState? { core.state(of: app) }

    /// Analytics events as `"$Event app"`, except `$AppTerminated`.
    var analytics: [String] {
        journal.compactMap { record in
            guard case .analytics(let event) = record.kind, event.name != "$AppTerminated" else { return nil }
            return "\(event.name) \(record.app)"
        }
    }

    var analyticsEvents: [AnalyticsEvent] {
        journal.compactMap { record in
            guard case .analytics(let event) = record.kind else { return nil }
            return event
        }
    }

    /// Terminations as `"app reason"`.
    var terminations: [String] {
        journal.compactMap { record in
            guard case .analytics(.appTerminated(let reason)) = record.kind else { return nil }
            return "\(record.app) \(reason.rawValue)"
        }
    }

    /// Status publications as `"app status"`.
    var statuses: [String] {
        actions.compactMap { action in
            guard case .publishStatus(let app, let status) = action else { return nil }
            return "\(app) \(status)"
        }
    }

    var journal: [JournalRecord] {
        actions.compactMap { action in
            guard case .journal(let record) = action else { return nil }
            return record
        }
    }

    /// Messages delivered to `app`.
    func messages(to app: String) -> [AppMessage] {
        actions.compactMap { action in
            guard case .deliver(let target, let message) = action, target == app else { return nil }
            return message
        }
    }

    /// Makes the watchdog's scans of `app` find `outcome` from now on (they find it in the
    /// foreground until then).
    mutating func scans(_ app: String, find outcome: ScanOutcome) {
        simulator.apply(ScenarioStep(time: now, verb: .scan(app: app, outcome: outcome)))
    }

    /// The deadline of `app`'s timer of `kind`, if armed.
    func deadline(_ app: String, _ kind: TimerID.Kind) -> Instant? {
        core.armedTimers().first { $0.timer == TimerID(app: app, kind: kind) }?.deadline
    }
}

func policy(_ apps: [AppPolicy], slots: Int = 1, memory: MemorySettings = MemorySettings()) -> Policy {
    Policy(foregroundSlots: slots, memory: memory, apps: apps)
}

func seconds(_ value: Double) -> Instant { Harness.seconds(value) }

@Suite struct LifecycleLaunchTests {
    /// Opening a stopped app spawns it for the user, publishes foreground, and journals a cold $AppStart once ready.
    @Test func openingAStoppedAppLaunchesItCold() throws {
        var harness = Harness(policy([AppPolicy(name: "mail")]))
        let out = try harness.send(.open(app: "mail"), at: 0)
        #expect(out.contains(.spawn(app: "mail", launch: 1, reason: .user, restore: false)))
        #expect(harness.state("mail") == .active)
        #expect(harness.statuses == ["mail foreground"])
        #expect(harness.analyticsEvents == [.appStart(cold: true, afterPassive: false)])
    }

    /// A notify app stays inactive until it calls ready.
    @Test func notifyAppStaysInactiveUntilReady() throws {
        var harness = Harness(policy([AppPolicy(name: "maps", readiness: .notify)]))
        try harness.send(.open(app: "maps"), at: 0)
        #expect(harness.state("maps") == .inactive)
        #expect(harness.analytics.isEmpty)
        try harness.send(.ready(app: "maps"), at: 3)
        #expect(harness.state("maps") == .active)
        #expect(harness.analytics == ["$AppStart maps"])
        harness.advance(to: 60)
        #expect(harness.terminations.isEmpty)
    }

    /// A notify app that is not ready within launch.timeout is killed with launchTimeout.
    @Test func notifyAppThatNeverGetsReadyIsKilledAtTheLaunchTimeout() throws {
        var harness = Harness(policy([AppPolicy(name: "maps", readiness: .notify)]))
        try harness.send(.open(app: "maps"), at: 0)
        harness.advance(to: 19.9)
        #expect(harness.state("maps") == .inactive)
        harness.advance(to: 20)
        #expect(harness.terminations == ["maps launchTimeout"])
        #expect(harness.actions.contains(.kill(app: "maps", reason: .launchTimeout)))
        #expect(harness.state("maps") == .notRunning)
    }

    /// Launch numbers count per app, and an exit of an older launch is ignored.
    @Test func exitOfAnOlderLaunchIsIgnored() throws {
        var harness = Harness(policy([AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.forceQuit(app: "mail"), at: 1)
        let out = try harness.send(.open(app: "mail"), at: 2)
        #expect(out.contains(.spawn(app: "mail", launch: 2, reason: .user, restore: false)))
        try harness.send(.processExited(app: "mail", launch: 1, end: .crashed(description: "SIGSEGV")), at: 3)
        #expect(harness.state("mail") == .active)
        try harness.send(.processExited(app: "mail", launch: 2, end: .crashed(description: "SIGSEGV")), at: 4)
        #expect(harness.state("mail") == .notRunning)
        #expect(harness.terminations == ["mail userForceQuit", "mail crashed"])
    }

    /// Opening a background app is a hot start: active at once, $AppStart not cold.
    @Test func openingABackgroundAppIsAHotStart() throws {
        var harness = Harness(policy([AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 10)
        harness.advance(to: 20)
        #expect(harness.state("mail") == .suspended)
        let out = try harness.send(.open(app: "mail"), at: 30)
        #expect(out.contains(.thaw(app: "mail")))
        #expect(!out.contains { if case .spawn = $0 { true } else { false } })
        #expect(harness.state("mail") == .active)
        #expect(
            harness.analyticsEvents == [
                .appStart(cold: true, afterPassive: false), .appEnd(foregroundDuration: .seconds(10)),
                .appStart(cold: false, afterPassive: false),
            ])
    }

    /// With one foreground slot, the leaving app's status and analytics come before the arriving app's.
    @Test func leavingAppComesBeforeArrivingAppInOneSlot() throws {
        var harness = Harness(policy([AppPolicy(name: "mail"), AppPolicy(name: "maps")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.open(app: "maps"), at: 1)
        #expect(harness.state("mail") == .background)
        #expect(harness.state("maps") == .active)
        #expect(harness.statuses == ["mail foreground", "mail background", "maps foreground"])
        #expect(harness.analytics == ["$AppStart mail", "$AppEnd mail", "$AppStart maps"])
    }

    /// With two slots the least recently used foreground app leaves when a third is opened.
    @Test func leastRecentlyUsedForegroundAppLeavesWhenSlotsAreFull() throws {
        var harness = Harness(policy([AppPolicy(name: "a"), AppPolicy(name: "b"), AppPolicy(name: "c")], slots: 2))
        try harness.send(.open(app: "a"), at: 0)
        try harness.send(.open(app: "b"), at: 1)
        try harness.send(.open(app: "a"), at: 2)
        try harness.send(.open(app: "c"), at: 3)
        #expect(harness.state("a") == .active)
        #expect(harness.state("b") == .background)
        #expect(harness.state("c") == .active)
    }

    /// overlay-end returns to active without a new $AppStart.
    @Test func overlayEndDoesNotJournalAnAppStart() throws {
        var harness = Harness(policy([AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.overlay, at: 1)
        #expect(harness.state("mail") == .inactive)
        try harness.send(.overlayEnd, at: 2)
        #expect(harness.state("mail") == .active)
        #expect(harness.analytics == ["$AppStart mail"])
        #expect(harness.statuses == ["mail foreground"])
    }

    /// Opening while locked is refused with a conflict that says to unlock first, and changes nothing.
    @Test func openWhileLockedIsRefused() throws {
        var harness = Harness(policy([AppPolicy(name: "mail"), AppPolicy(name: "maps")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.beginTask(app: "mail", name: "sync"), at: 1)
        try harness.send(.lock, at: 2)
        #expect(harness.deadline("mail", .taskBudget) == nil)
        let error = #expect(throws: LifecycleError.self) { try harness.send(.open(app: "maps"), at: 100) }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("unlock the screen first") == true)
        #expect(harness.state("maps") == .notRunning)
        #expect(harness.deadline("mail", .taskBudget) == nil)
        try harness.send(.unlock, at: 100)
        try harness.send(.open(app: "maps"), at: 100)
        #expect(harness.state("maps") == .active)
        #expect(harness.deadline("mail", .taskBudget) == seconds(700))
    }

    /// A passively launched app opened by the user journals $AppStart with afterPassive.
    @Test func openingAPassivelyLaunchedAppReportsAfterPassive() throws {
        var app = AppPolicy(name: "news", backgroundModes: [.fetch], fetchInterval: .every(.seconds(60)))
        app.settings.fetch.coalesce = .zero
        var harness = Harness(policy([app]))
        _ = try harness.send(.footprint(app: "news", bytes: 1), at: 0)
        harness.advance(to: 60)
        #expect(harness.state("news") == .background)
        try harness.send(.open(app: "news"), at: 61)
        #expect(
            harness.analyticsEvents == [
                .appStartPassively(reason: .fetch), .appStart(cold: false, afterPassive: true),
            ])
    }

    /// Events for apps the policy does not declare are refused as not found, changing nothing.
    @Test func unknownAppIsRefused() {
        var harness = Harness(policy([AppPolicy(name: "mail")]))
        #expect(throws: LifecycleError.self) { try harness.send(.open(app: "mial"), at: 0) }
        do {
            try harness.send(.open(app: "mial"), at: 0)
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.contains("\"mial\""))
        }
        #expect(harness.actions.isEmpty)
    }

    /// Every state change sets the app's oom_score_adj for its band.
    @Test func everyStateChangeSetsTheOOMScore() throws {
        var harness = Harness(policy([AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        let bands = harness.actions.compactMap { action -> KillBand? in
            guard case .setOOMScore(_, let band, _) = action else { return nil }
            return band
        }
        #expect(bands == [.foreground, .foreground, .idleBackground, .suspended])
    }

    /// A refused first event does not lose the first fetch plan: the next accepted event returns it.
    @Test func refusedFirstEventKeepsTheFirstFetchPlan() throws {
        let news = AppPolicy(name: "news", backgroundModes: [.fetch], fetchInterval: .every(.seconds(900)))
        var core = Lifecycle(policy: Policy(apps: [news]))
        #expect(throws: LifecycleError.self) { try core.handle(.open(app: "nobody"), at: .zero) }
        let out = try core.handle(.footprint(app: "news", bytes: 1), at: seconds(1))
        #expect(out.contains(.armTimer(TimerID(app: "news", kind: .fetchWake), deadline: seconds(900))))
    }

    /// Opening an app while an overlay covers the screen ends the overlay: the app becomes active.
    @Test func openEndsAnOverlay() throws {
        var harness = Harness(policy([AppPolicy(name: "mail"), AppPolicy(name: "maps")], slots: 2))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.overlay, at: 1)
        try harness.send(.open(app: "maps"), at: 2)
        #expect(harness.state("mail") == .active)
        #expect(harness.state("maps") == .active)
        #expect(harness.analytics == ["$AppStart mail", "$AppStart maps"])
    }
}
