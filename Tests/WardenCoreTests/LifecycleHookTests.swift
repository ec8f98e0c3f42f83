import Testing
import WardenCore

/// When the core runs the operator's hooks (`[hooks]`): after each kill and on each change of
/// the pressure level, only when the policy names a command.
@Suite struct LifecycleHookTests {
    static let mib: Int64 = 1 << 20

    static func at(_ seconds: Int64) -> Instant { Instant(sinceOrigin: .seconds(seconds)) }

    static func hooks(in actions: [LifecycleAction]) -> [HookInvocation] {
        actions.compactMap {
            if case .runHook(let hook) = $0 { return hook }
            return nil
        }
    }

    /// The deadline of the last timer of `kind` armed among `actions`.
    static func deadline(of kind: TimerID.Kind, in actions: [LifecycleAction]) -> Instant? {
        actions.compactMap {
            if case .armTimer(let id, let deadline) = $0, id.kind == kind { return deadline }
            return nil
        }
        .last
    }

    /// A suspended app with a 300 MiB footprint on a 1 GiB device, with both hooks configured.
    static func device(hooks: HookSettings) throws -> Lifecycle {
        var policy = Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")])
        policy.hooks = hooks
        var core = Lifecycle(policy: policy)
        _ = try core.handle(.open(app: "mail"), at: at(0))
        _ = try core.handle(.launched(app: "mail", launch: 1), at: at(0))
        _ = try core.handle(.footprint(app: "mail", bytes: 300 * mib), at: at(1))
        _ = try core.handle(.open(app: "maps"), at: at(2))
        _ = try core.handle(.timerFired(TimerID(app: "mail", kind: .backgroundGrace)), at: at(7))
        #expect(core.state(of: "mail") == .suspended)
        return core
    }

    /// A memory kill runs on_kill after the kill, with the app, the reason, its footprint, its
    /// band and the level; the change to critical runs on_pressure after it, with both levels.
    @Test func aMemoryKillRunsTheKillHookAfterTheKillAndThePressureHookOnTheChange() throws {
        var core = try Self.device(
            hooks: HookSettings(onKill: "notify-kill", onPressure: "notify-pressure", timeout: .seconds(3)))
        let actions = try core.handle(.memorySample(available: 20 * Self.mib, total: 1024 * Self.mib), at: Self.at(10))
        let hooks = Self.hooks(in: actions)
        #expect(
            hooks == [
                HookInvocation(
                    kind: .kill, command: "notify-kill", timeout: .seconds(3), app: "mail", reason: .memoryPressure,
                    footprint: 300 * Self.mib, band: .suspended, level: .critical),
                HookInvocation(
                    kind: .pressure, command: "notify-pressure", timeout: .seconds(3), level: .critical,
                    previousLevel: .normal, available: 20 * Self.mib),
            ])
        let kill = try #require(actions.firstIndex(of: .kill(app: "mail", reason: .memoryPressure)))
        let hook = try #require(actions.firstIndex { if case .runHook = $0 { true } else { false } })
        #expect(kill < hook, "the kill comes before any hook")
        #expect(
            hooks.first?.environment == [
                "APPWARDEN_HOOK": "kill", "APPWARDEN_APP": "mail", "APPWARDEN_REASON": "memoryPressure",
                "APPWARDEN_FOOTPRINT": "314572800", "APPWARDEN_BAND": "suspended", "APPWARDEN_LEVEL": "critical",
            ])
    }

    /// The pressure hook runs once per change: a second sample at the same level runs nothing,
    /// the way back to normal runs it again.
    @Test func thePressureHookRunsOnlyWhenTheLevelChanges() throws {
        var core = try Self.device(hooks: HookSettings(onPressure: "notify-pressure"))
        let total = 1024 * Self.mib
        let warning = try core.handle(.memorySample(available: 100 * Self.mib, total: total), at: Self.at(10))
        #expect(Self.hooks(in: warning).map(\.level) == [.warning])
        let same = try core.handle(.memorySample(available: 110 * Self.mib, total: total), at: Self.at(11))
        #expect(Self.hooks(in: same).isEmpty)
        let normal = try core.handle(.memorySample(available: 900 * Self.mib, total: total), at: Self.at(12))
        #expect(Self.hooks(in: normal).map(\.previousLevel) == [.warning])
        #expect(Self.hooks(in: normal).map(\.level) == [.normal])
    }

    /// Without [hooks] nothing is run, for kills or level changes.
    @Test func withoutHooksTheCoreRunsNone() throws {
        var core = try Self.device(hooks: HookSettings())
        let actions = try core.handle(.pressure(.critical), at: Self.at(10))
        #expect(actions.contains(.kill(app: "mail", reason: .memoryPressure)))
        #expect(Self.hooks(in: actions).isEmpty)
    }

    /// A kill for a broken rule (a fetch window that timed out) runs on_kill too; a user's
    /// force-quit, which is a graceful termination, does not.
    @Test func aKillForABrokenRuleRunsTheKillHookAndAForceQuitDoesNot() throws {
        var core = try Self.device(hooks: HookSettings(onKill: "notify-kill"))
        let quit = try core.handle(.forceQuit(app: "maps"), at: Self.at(10))
        #expect(Self.hooks(in: quit).isEmpty)
        var fetcher = AppPolicy(name: "news", backgroundModes: [.fetch], fetchInterval: .every(.seconds(60)))
        fetcher.settings.fetch.coalesce = .zero
        var policy = Policy(apps: [fetcher])
        policy.hooks = HookSettings(onKill: "notify-kill")
        var other = Lifecycle(policy: policy)
        let wake = try #require(Self.deadline(of: .fetchWake, in: other.start(at: Self.at(0))))
        var opened = try other.handle(.timerFired(TimerID(app: "news", kind: .fetchWake)), at: wake)
        opened += try other.handle(.launched(app: "news", launch: 1), at: wake)
        let end = try #require(Self.deadline(of: .fetchWindow, in: opened))
        let timeout = try other.handle(.timerFired(TimerID(app: "news", kind: .fetchWindow)), at: end)
        #expect(Self.hooks(in: timeout).map(\.reason) == [.fetchTimeout])
    }
}
