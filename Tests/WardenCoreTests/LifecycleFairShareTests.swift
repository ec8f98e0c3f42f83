import Testing
import WardenCore

/// Rule 9, the culprit first: an app over its fair share of the device goes before every other
/// app under critical pressure; within it, the band order holds.
@Suite struct LifecycleFairShareTests {
    static let mib: Int64 = 1 << 20
    static let gib: Int64 = 1 << 30

    /// `idle` suspended (200MiB) and `front` in the foreground with `frontSize`, on a 1GiB device
    /// whose memory the core knows from one sample.
    static func device(
        frontSize: Int64, memory: MemorySettings = MemorySettings(), front: AppPolicy = AppPolicy(name: "front")
    ) throws -> Harness {
        var harness = Harness(Policy(memory: memory, apps: [AppPolicy(name: "idle"), front]))
        try harness.send(.memorySample(available: gib, total: gib), at: 0)
        try harness.send(.footprint(app: "idle", bytes: 200 * mib), at: 0)
        try harness.send(.open(app: "idle"), at: 1)
        try harness.send(.open(app: "front"), at: 2)
        try harness.send(.footprint(app: "front", bytes: frontSize), at: 3)
        harness.advance(to: 10)
        return harness
    }

    /// A foreground app above 40% of the device is killed before a suspended app.
    @Test func anAppOverItsFairShareIsKilledBeforeSuspendedApps() throws {
        var harness = try Self.device(frontSize: 420 * Self.mib)
        #expect(harness.state("idle") == .suspended)
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 11)
        #expect(harness.terminations.first == "front memoryPressure")
        let sentences = harness.journal.compactMap { record -> String? in
            guard record.app == "front", case .decision(let text) = record.kind else { return nil }
            return text
        }
        #expect(
            sentences.contains(
                "Chosen by the memory killer: its footprint of 420MiB is over its fair share (40% of 1GiB: 409.6MiB), and an app over its fair share goes first."
            ))
    }

    /// A foreground app within its fair share keeps the band order: the suspended app goes first.
    @Test func anAppWithinItsFairShareKeepsTheBandOrder() throws {
        var harness = try Self.device(frontSize: 400 * Self.mib)
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 11)
        #expect(harness.terminations.first == "idle memoryPressure")
    }

    /// The band and the kernel's OOM score follow the footprint across the fair share.
    @Test func theBandAndScoreFollowTheFootprintAcrossTheFairShare() throws {
        var harness = try Self.device(frontSize: 100 * Self.mib)
        let over = try harness.send(.footprint(app: "front", bytes: 500 * Self.mib), at: 11)
        #expect(over.contains(.setOOMScore(app: "front", band: .overFairShare, score: OOMScore.maximum)))
        #expect(harness.core.killCandidates().first { $0.app == "front" }?.band == .overFairShare)
        let back = try harness.send(.footprint(app: "front", bytes: 100 * Self.mib), at: 12)
        #expect(back.contains(.setOOMScore(app: "front", band: .foreground, score: 0)))
    }

    /// An app's own fair share overrides the global one.
    @Test func anAppsOwnFairShareOverridesTheGlobalOne() throws {
        var front = AppPolicy(name: "front")
        front.memory.fairShare = .bytes(600 * Self.mib)
        var harness = try Self.device(frontSize: 500 * Self.mib, front: front)
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 11)
        #expect(harness.terminations.first == "idle memoryPressure")
    }

    /// `kill_foreground = false` keeps a foreground app over its fair share from the killer.
    @Test func killForegroundFalseKeepsAForegroundAppOverItsFairShare() throws {
        var harness = try Self.device(
            frontSize: 600 * Self.mib, memory: MemorySettings(killForeground: false))
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 11)
        #expect(harness.terminations == ["idle memoryPressure"])
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 12)
        #expect(harness.terminations == ["idle memoryPressure"])
        #expect(harness.state("front") == .active)
    }

    /// Without a fair share (`fair_share = "none"`) the band order alone decides.
    @Test func withoutAFairShareTheBandOrderAloneDecides() throws {
        var harness = try Self.device(frontSize: 900 * Self.mib, memory: MemorySettings(fairShare: nil))
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 11)
        #expect(harness.terminations.first == "idle memoryPressure")
    }

    /// A percentage fair share means nothing until the core knows the device's memory.
    @Test func aPercentageFairShareWaitsForTheDevicesMemory() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "idle"), AppPolicy(name: "front")]))
        try harness.send(.open(app: "idle"), at: 1)
        try harness.send(.open(app: "front"), at: 2)
        try harness.send(.footprint(app: "front", bytes: 100 * Self.gib), at: 3)
        #expect(harness.core.killCandidates().first { $0.app == "front" }?.band == .foreground)
        try harness.send(.memorySample(available: Self.gib, total: 2 * Self.gib), at: 4)
        #expect(harness.core.killCandidates().first { $0.app == "front" }?.band == .overFairShare)
    }

    /// While nobody may be killed, the killer says so once, not at every sample.
    @Test func nobodyMayBeKilledIsJournaledOncePerCriticalSpell() throws {
        var harness = Harness(
            Policy(memory: MemorySettings(killForeground: false), apps: [AppPolicy(name: "front")]))
        try harness.send(.open(app: "front"), at: 1)
        for second in 2...5 {
            try harness.send(.memorySample(available: 0, total: Self.gib), at: Double(second))
        }
        try harness.send(.memorySample(available: Self.gib, total: Self.gib), at: 6)
        try harness.send(.memorySample(available: 0, total: Self.gib), at: 7)
        let refusals = harness.journal.filter { $0.kind == .decision("Memory is critical but no app may be killed.") }
        #expect(refusals.map(\.time) == [seconds(2), seconds(7)])
    }
}
