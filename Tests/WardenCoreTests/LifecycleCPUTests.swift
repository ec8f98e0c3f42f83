import Testing
import WardenCore
import WardenScenario
import WardenSimulator

/// Rule 13: the CPU class of each state, handed to the runtime before a spawn and on each
/// change, and the background CPU budget (iOS's 80 % over 60 s): a warning, then `cpuLimit`.
@Suite struct LifecycleCPUTests {
    static func harness(_ cpu: CPUSettings = CPUSettings(), modes: Set<BackgroundMode> = []) -> Harness {
        var player = AppPolicy(name: "player", backgroundModes: modes)
        player.cpu = cpu
        var maps = AppPolicy(name: "maps")
        maps.cpu = cpu
        return Harness(Policy(apps: [player, maps]))
    }

    static func cpuClasses(_ actions: [LifecycleAction], of app: String) -> [CPUClass] {
        actions.compactMap { action in
            guard case .setCPU(let target, let cpuClass, _) = action, target == app else { return nil }
            return cpuClass
        }
    }

    /// A user's launch gives the group the foreground's weight before the spawn, so that no
    /// process of the app runs in the background's class.
    @Test func aLaunchSetsTheForegroundClassBeforeTheSpawn() throws {
        var harness = Self.harness()
        let actions = try harness.send(.open(app: "player"), at: 0)
        let cpu = actions.firstIndex(
            of: .setCPU(app: "player", cpuClass: .foreground, control: CPUControl(weight: 10_000, ioWeight: 1000)))
        let spawn = actions.firstIndex { if case .spawn = $0 { true } else { false } }
        #expect(cpu != nil && spawn != nil && cpu! < spawn!)
        #expect(Self.cpuClasses(actions, of: "player") == [.foreground])
    }

    /// Leaving the foreground gives the app the background's weight (and cap); coming back
    /// gives it the foreground's again; suspension changes nothing (a frozen group runs no code).
    @Test func theClassFollowsTheState() throws {
        var harness = Self.harness(CPUSettings(backgroundWeight: 2, backgroundMaxPercent: 50))
        try harness.send(.open(app: "player"), at: 0)
        let home = try harness.send(.home, at: 1)
        #expect(
            home.contains(
                .setCPU(
                    app: "player", cpuClass: .background, control: CPUControl(weight: 2, maxPercent: 50, ioWeight: 10)))
        )
        harness.advance(to: 10)
        #expect(harness.state("player") == .suspended)
        let open = try harness.send(.open(app: "player"), at: 20)
        #expect(Self.cpuClasses(open, of: "player") == [.foreground])
        #expect(Self.cpuClasses(harness.actions, of: "player") == [.foreground, .background, .foreground])
    }

    /// A passive launch runs in the background's class from its first instruction.
    @Test func aPassiveLaunchStartsInTheBackgroundClass() throws {
        var harness = Self.harness(modes: [.remoteNotification])
        let actions = try harness.send(
            .push(target: .app("player"), payload: #"{"aps":{"content-available":1}}"#, id: nil), at: 0)
        let cpu = actions.firstIndex { if case .setCPU(_, .background, _) = $0 { true } else { false } }
        let spawn = actions.firstIndex { if case .spawn = $0 { true } else { false } }
        #expect(cpu != nil && spawn != nil && cpu! < spawn!)
        #expect(Self.cpuClasses(actions, of: "player") == [.background])
    }

    /// A background app above 80 % of a CPU for a window is warned with its figures, and
    /// terminated `cpuLimit` when the next window is above too.
    @Test func aBackgroundAppThatKeepsSpinningIsWarnedThenTerminated() throws {
        var harness = Self.harness()
        try harness.send(.open(app: "player"), at: 0)
        try harness.send(.beginTask(app: "player", name: "encode"), at: 1)
        try harness.send(.open(app: "maps"), at: 1)
        harness.useCPU(95, "player")
        harness.advance(to: 60)
        #expect(harness.messages(to: "player").filter { if case .cpuWarning = $0 { true } else { false } }.isEmpty)
        harness.advance(to: 61)
        #expect(
            harness.messages(to: "player").contains(.cpuWarning(percent: 95, limitPercent: 80, window: .seconds(60))))
        #expect(harness.terminations.isEmpty)
        harness.advance(to: 121)
        #expect(harness.terminations == ["player cpuLimit"])
        #expect(
            harness.journal.contains {
                $0.kind
                    == .decision("Used 95% of a CPU over 1m in background, above its limit of 80%, after a warning.")
            })
    }

    /// `explain` states the class and, for a background app, its last window against the budget.
    @Test func explainStatesTheClassAndTheBudget() throws {
        var harness = Self.harness()
        try harness.send(.open(app: "player"), at: 0)
        #expect(
            harness.core.outlook(of: "player", at: harness.now)?.first
                == "It runs in the foreground CPU class (weight 10000, I/O weight 1000).")
        try harness.send(.beginTask(app: "player", name: "encode"), at: 1)
        try harness.send(.open(app: "maps"), at: 1)
        harness.useCPU(95, "player")
        harness.advance(to: 61)
        let outlook = try #require(harness.core.outlook(of: "player", at: harness.now))
        #expect(outlook.contains("It runs in the background CPU class (weight 1, I/O weight 10)."))
        #expect(
            outlook.contains(
                "It used 95% of a CPU over its last 1m in background, against a budget of 80%, and was warned: another such window terminates it."
            ))
    }

    /// An app warned once that then uses less is not terminated, and a later window above the
    /// budget warns it again rather than terminating it.
    @Test func anAppThatCalmsDownAfterTheWarningRunsOn() throws {
        var harness = Self.harness()
        try harness.send(.open(app: "player"), at: 0)
        try harness.send(.beginTask(app: "player", name: "encode"), at: 1)
        try harness.send(.open(app: "maps"), at: 1)
        harness.useCPU(95, "player")
        harness.advance(to: 61)
        harness.useCPU(10, "player")
        harness.advance(to: 121)
        harness.useCPU(95, "player")
        harness.advance(to: 181)
        #expect(harness.terminations.isEmpty)
        #expect(harness.messages(to: "player").filter { if case .cpuWarning = $0 { true } else { false } }.count == 2)
    }

    /// The foreground is never held to the budget: a busy foreground app is not measured.
    @Test func theForegroundIsNeverHeldToTheBudget() throws {
        var harness = Self.harness()
        try harness.send(.open(app: "player"), at: 0)
        harness.useCPU(200, "player")
        harness.advance(to: 600)
        #expect(harness.terminations.isEmpty)
        #expect(!harness.actions.contains { if case .measureCPU = $0 { true } else { false } })
    }

    /// `background_limit = "none"` turns the budget off: nothing is measured, nobody is warned.
    @Test func aBudgetTurnedOffMeasuresNothing() throws {
        var harness = Self.harness(CPUSettings(backgroundLimitPercent: nil))
        try harness.send(.open(app: "player"), at: 0)
        try harness.send(.beginTask(app: "player", name: "encode"), at: 1)
        try harness.send(.home, at: 1)
        harness.useCPU(100, "player")
        harness.advance(to: 300)
        #expect(harness.terminations.isEmpty)
        #expect(!harness.actions.contains { if case .measureCPU = $0 { true } else { false } })
    }

    /// A termination for the CPU limit is a system termination: no fetch or push wakes the app
    /// until the user opens it, and its next launch restores its state.
    @Test func cpuLimitIsASystemTermination() {
        #expect(TerminationReason.cpuLimit.isSystemTermination)
        #expect(!TerminationReason.cpuLimit.isGraceful)
    }

    /// A reload that changes the background weight hands the running background app its new
    /// control at once.
    @Test func aReloadChangingTheWeightAppliesAtOnce() throws {
        var harness = Self.harness()
        try harness.send(.open(app: "player"), at: 0)
        try harness.send(.beginTask(app: "player", name: "encode"), at: 1)
        try harness.send(.home, at: 1)
        var policy = harness.core.policy
        policy.apps[0].cpu.backgroundWeight = 5
        let actions = try harness.send(.policyChanged(policy), at: 2)
        #expect(
            actions.contains(
                .setCPU(app: "player", cpuClass: .background, control: CPUControl(weight: 5, ioWeight: 10))))
        #expect(!actions.contains { if case .setCPU("maps", _, _) = $0 { true } else { false } })
    }

    /// The I/O weights follow the same classes, and a reload that changes one hands the running
    /// app its new control at once.
    @Test func theIOWeightFollowsTheClass() throws {
        var harness = Self.harness(CPUSettings(foregroundIOWeight: 800, backgroundIOWeight: 3))
        let open = try harness.send(.open(app: "player"), at: 0)
        #expect(
            open.contains(
                .setCPU(app: "player", cpuClass: .foreground, control: CPUControl(weight: 10_000, ioWeight: 800))))
        try harness.send(.beginTask(app: "player", name: "encode"), at: 1)
        let home = try harness.send(.home, at: 1)
        #expect(
            home.contains(.setCPU(app: "player", cpuClass: .background, control: CPUControl(weight: 1, ioWeight: 3))))
        var policy = harness.core.policy
        policy.apps[0].cpu.backgroundIOWeight = 7
        let reload = try harness.send(.policyChanged(policy), at: 2)
        #expect(
            reload.contains(.setCPU(app: "player", cpuClass: .background, control: CPUControl(weight: 1, ioWeight: 7))))
    }
}
