import Testing
import WardenCore

/// Per-app limits, as jetsam's: `memory_max`, the foreground and background limits, the
/// warning at `memory_high`, and the kernel's OOM kills named for what they are.
@Suite struct LifecycleMemoryLimitTests {
    static let mib: Int64 = 1 << 20

    static func limited(
        max: Int64? = nil, high: Int64? = nil, memory: MemorySettings = MemorySettings(),
        overrides: AppMemoryOverrides = AppMemoryOverrides(), hook: String? = nil
    ) -> Harness {
        var app = AppPolicy(name: "leak", memoryMax: max, memoryHigh: high)
        app.memory = overrides
        var policy = Policy(memory: memory, apps: [app, AppPolicy(name: "idle")])
        policy.hooks.onKill = hook
        return Harness(policy)
    }

    /// A launch hands the runtime the group's limits before the spawn, so that the process
    /// never runs without them.
    @Test func theGroupsLimitsComeBeforeTheSpawn() throws {
        var harness = Self.limited(max: 96 * Self.mib, high: 72 * Self.mib)
        let actions = try harness.send(.open(app: "leak"), at: 0)
        let limits = actions.firstIndex(
            of: .setMemoryLimits(app: "leak", limits: GroupMemoryLimits(max: 96 * Self.mib, high: 72 * Self.mib)))
        let spawn = actions.firstIndex { if case .spawn = $0 { true } else { false } }
        #expect(limits != nil && spawn != nil && limits! < spawn!)
    }

    /// An app without limits gets no limit action at all.
    @Test func anAppWithoutLimitsGetsNoLimitAction() throws {
        var harness = Self.limited()
        let actions = try harness.send(.open(app: "leak"), at: 0)
        #expect(!actions.contains { if case .setMemoryLimits = $0 { true } else { false } })
    }

    /// A footprint over `memory_max` terminates the app (`memoryLimit`), with the figures in
    /// the journal and the operator's kill hook run; nothing happens to the other apps.
    @Test func aFootprintOverMemoryMaxTerminatesTheAppAlone() throws {
        var harness = Self.limited(max: 96 * Self.mib, hook: "logger killed")
        try harness.send(.open(app: "idle"), at: 0)
        try harness.send(.open(app: "leak"), at: 1)
        let actions = try harness.send(.footprint(app: "leak", bytes: 112 * Self.mib), at: 2)
        #expect(harness.terminations == ["leak memoryLimit"])
        #expect(actions.contains(.kill(app: "leak", reason: .memoryLimit)))
        #expect(
            actions.contains {
                if case .runHook(let hook) = $0 { hook.reason == .memoryLimit && hook.app == "leak" } else { false }
            })
        #expect(
            harness.journal.contains {
                $0.kind == .decision("Its footprint of 112MiB is over its memory_max of 96MiB while active.")
            })
        #expect(harness.state("idle") == .background)
    }

    /// Leaving the foreground above the background limit terminates the app, as jetsam does.
    @Test func leavingTheForegroundAboveTheBackgroundLimitTerminatesTheApp() throws {
        var harness = Self.limited(memory: MemorySettings(backgroundLimit: .bytes(200 * Self.mib)))
        try harness.send(.open(app: "leak"), at: 0)
        try harness.send(.footprint(app: "leak", bytes: 300 * Self.mib), at: 1)
        #expect(harness.state("leak") == .active)
        try harness.send(.home, at: 2)
        #expect(harness.terminations == ["leak memoryLimit"])
    }

    /// The background limit is set when the app leaves the foreground and lifted when it
    /// returns; `memory_max` stays in every state.
    @Test func theBackgroundLimitIsSetOnLeavingAndLiftedOnReturning() throws {
        var harness = Self.limited(
            max: 500 * Self.mib, memory: MemorySettings(backgroundLimit: .bytes(200 * Self.mib)))
        let opened = try harness.send(.open(app: "leak"), at: 0)
        #expect(
            opened.contains(.setMemoryLimits(app: "leak", limits: GroupMemoryLimits(max: 500 * Self.mib, high: nil))))
        try harness.send(.footprint(app: "leak", bytes: 100 * Self.mib), at: 1)
        let home = try harness.send(.home, at: 2)
        #expect(home.contains(.setMemoryLimits(app: "leak", limits: GroupMemoryLimits(max: 200 * Self.mib, high: nil))))
        let back = try harness.send(.open(app: "leak"), at: 3)
        #expect(back.contains(.setMemoryLimits(app: "leak", limits: GroupMemoryLimits(max: 500 * Self.mib, high: nil))))
        #expect(harness.terminations.isEmpty)
    }

    /// A passive launch starts under the background limit.
    @Test func aPassiveLaunchStartsUnderTheBackgroundLimit() throws {
        var app = AppPolicy(name: "sync", backgroundModes: [.remoteNotification])
        app.memory.backgroundLimit = .bytes(64 * Self.mib)
        var harness = Harness(Policy(memory: MemorySettings(foregroundLimit: .bytes(256 * Self.mib)), apps: [app]))
        let actions = try harness.send(
            .push(target: .app("sync"), payload: #"{"aps":{"content-available":1}}"#, id: nil), at: 0)
        #expect(
            actions.contains(.setMemoryLimits(app: "sync", limits: GroupMemoryLimits(max: 64 * Self.mib, high: nil))))
    }

    /// Percentage limits take effect once the device's memory is known, in the running group.
    @Test func percentageLimitsApplyOnceTheDevicesMemoryIsKnown() throws {
        var harness = Self.limited(overrides: AppMemoryOverrides(foregroundLimit: .percent(50)))
        let opened = try harness.send(.open(app: "leak"), at: 0)
        #expect(!opened.contains { if case .setMemoryLimits = $0 { true } else { false } })
        let sampled = try harness.send(.memorySample(available: 1 << 30, total: 1 << 30), at: 1)
        #expect(
            sampled.contains(.setMemoryLimits(app: "leak", limits: GroupMemoryLimits(max: 512 * Self.mib, high: nil))))
    }

    /// Crossing `memory_high` warns that app alone, once per crossing.
    @Test func crossingMemoryHighWarnsThatAppAlone() throws {
        var harness = Self.limited(high: 72 * Self.mib)
        try harness.send(.open(app: "idle"), at: 0)
        try harness.send(.open(app: "leak"), at: 1)
        try harness.send(.footprint(app: "leak", bytes: 80 * Self.mib), at: 2)
        try harness.send(.footprint(app: "leak", bytes: 90 * Self.mib), at: 3)
        #expect(harness.messages(to: "leak").filter { $0 == .memoryWarning }.count == 1)
        #expect(!harness.messages(to: "idle").contains(.memoryWarning))
        try harness.send(.footprint(app: "leak", bytes: 60 * Self.mib), at: 40)
        try harness.send(.footprint(app: "leak", bytes: 80 * Self.mib), at: 41)
        #expect(harness.messages(to: "leak").filter { $0 == .memoryWarning }.count == 2)
    }

    /// A process the kernel killed at the app's own limit ends the app with `memoryLimit`, and
    /// the journal says so with the limit and the peak; never `crashed`.
    @Test func aKernelKillAtTheAppsLimitIsMemoryLimit() throws {
        var harness = Self.limited(max: 96 * Self.mib, hook: "logger killed")
        let opened = try harness.send(.open(app: "leak"), at: 0)
        #expect(opened.contains { if case .spawn = $0 { true } else { false } })
        let kill = OOMKill(limit: 96 * Self.mib, peak: 96 * Self.mib)
        let actions = try harness.send(.processExited(app: "leak", launch: 1, end: .oomKilled(kill)), at: 1)
        #expect(harness.terminations == ["leak memoryLimit"])
        #expect(
            harness.journal.contains {
                $0.kind == .decision("Killed by the kernel at its memory limit of 96MiB (peak 96MiB).")
            })
        #expect(actions.contains { if case .runHook(let hook) = $0 { hook.reason == .memoryLimit } else { false } })
        #expect(!actions.contains { if case .kill = $0 { true } else { false } })
    }

    /// A kernel OOM kill that was not at the app's own limit is a kernel kill, not a crash.
    @Test func aKernelKillForTheDeviceIsAKernelOOMKill() throws {
        var harness = Self.limited()
        try harness.send(.open(app: "leak"), at: 0)
        try harness.send(.processExited(app: "leak", launch: 1, end: .oomKilled(OOMKill(limit: nil))), at: 1)
        #expect(harness.terminations == ["leak kernelOOMKill"])
        #expect(
            harness.journal.contains {
                $0.kind == .decision("Killed by the kernel's OOM killer because the device ran out of memory.")
            })
    }

    /// An OOM kill of one process of a running app (a group the kernel does not kill whole)
    /// kills the rest of the app at once.
    @Test func anOOMKillInARunningAppKillsTheRest() throws {
        var harness = Self.limited(max: 96 * Self.mib)
        try harness.send(.open(app: "leak"), at: 0)
        let actions = try harness.send(.oomKilled(app: "leak", launch: 1, kill: OOMKill(limit: 96 * Self.mib)), at: 1)
        #expect(actions.contains(.kill(app: "leak", reason: .memoryLimit)))
        #expect(harness.state("leak") == .notRunning)
        // A report about an older launch changes nothing.
        try harness.send(.open(app: "leak"), at: 2)
        let stale = try harness.send(.oomKilled(app: "leak", launch: 1, kill: OOMKill(limit: nil)), at: 3)
        #expect(stale.isEmpty)
        #expect(harness.state("leak") == .active)
    }

    /// A memory-limit termination is a system one: the state is kept for the next launch and
    /// wakes leave the app alone until the user opens it.
    @Test func aMemoryLimitTerminationIsASystemTermination() {
        #expect(TerminationReason.memoryLimit.isSystemTermination)
        #expect(TerminationReason.kernelOOMKill.isSystemTermination)
        #expect(!TerminationReason.memoryLimit.isGraceful)
    }
}
