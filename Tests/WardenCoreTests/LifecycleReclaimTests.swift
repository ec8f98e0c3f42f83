import Testing
import WardenCore

/// Rule 9's measure inside a band: what a kill gives back at once, not the footprint counted whole.
@Suite struct LifecycleReclaimTests {
    static let mib: Int64 = 1 << 20

    /// Two suspended apps beside a foreground one: `zram`, 200 MiB all swapped to a zram at
    /// ratio 3 (so 200/3 MiB of RAM), and `resident`, 100 MiB in RAM.
    static func device(zramInRAM: Int64? = 200 * mib / 3) throws -> Harness {
        var harness = Harness(
            Policy(apps: [AppPolicy(name: "zram"), AppPolicy(name: "resident"), AppPolicy(name: "front")]))
        try harness.send(.open(app: "zram"), at: 1)
        try harness.send(.open(app: "resident"), at: 2)
        try harness.send(.open(app: "front"), at: 3)
        harness.advance(to: 100)
        try harness.send(.footprint(app: "resident", bytes: 100 * mib), at: 100)
        try harness.send(
            .footprint(app: "zram", bytes: 200 * mib, swapped: 200 * mib, swappedInRAM: zramInRAM), at: 100)
        #expect(harness.state("zram") == .suspended && harness.state("resident") == .suspended)
        return harness
    }

    /// An app of 200 MiB all in a zram at ratio 3 gives back about 67 MiB and goes after an app
    /// of 100 MiB in RAM; ranking by the footprint would have killed it first.
    @Test func anAppSwappedToZramRanksBelowASmallerResidentOne() throws {
        var harness = try Self.device()
        let candidates = harness.core.killCandidates()
        let zram = try #require(candidates.first { $0.app == "zram" })
        #expect(zram.footprint == 200 * Self.mib && zram.swapped == 200 * Self.mib)
        #expect(zram.reclaimable == 200 * Self.mib / 3)
        #expect(VictimRanking.rank(candidates, killForeground: false).map(\.app) == ["resident", "zram"])

        try harness.send(.pressure(.critical), at: 101)
        #expect(harness.terminations == ["resident memoryPressure"])
        try harness.send(.pressure(.critical), at: 102)
        #expect(harness.terminations == ["resident memoryPressure", "zram memoryPressure"])
    }

    /// The kill report and the snapshot give both figures: the footprint and what the kill gives
    /// back; the app passed over is said to give back less.
    @Test func theKillReportAndStatusShowTheFootprintAndWhatAKillGivesBack() throws {
        var harness = try Self.device()
        let snapshot = try #require(harness.core.snapshot(of: "zram", at: harness.now))
        #expect(snapshot.footprint == 200 * Self.mib && snapshot.reclaimableBytes == 200 * Self.mib / 3)
        try harness.send(.pressure(.critical), at: 101)
        let report = try #require(
            harness.journal.compactMap { record -> MemoryKillReport? in
                if case .memoryKill(let report) = record.kind { report } else { nil }
            }.first)
        #expect(report.footprint == 100 * Self.mib && report.reclaimable == 100 * Self.mib)
        let passed = try #require(report.others.first)
        #expect(passed.app == "zram" && passed.footprint == 200 * Self.mib && passed.reclaimable == 200 * Self.mib / 3)
        #expect(passed.reason.hasPrefix("its kill gives back less (66.7MiB against 100MiB)"))
    }

    /// A swapped part whose RAM the measurement does not say counts whole: the footprint decides.
    @Test func aSwappedPartOfUnknownWeightCountsWhole() throws {
        var harness = try Self.device(zramInRAM: nil)
        #expect(harness.core.killCandidates().first { $0.app == "zram" }?.reclaimable == 200 * Self.mib)
        try harness.send(.pressure(.critical), at: 101)
        #expect(harness.terminations == ["zram memoryPressure"])
    }

    /// Swap on a drive holds nothing in RAM: a compressed app's kill gives back only what stayed
    /// in RAM, and a later footprint without a swapped part keeps that weight.
    @Test func compressionToADriveLeavesOnlyTheResidentPart() throws {
        var harness = try Self.device()
        let launch = try #require(harness.core.snapshot(of: "resident", at: harness.now)).launch
        try harness.send(.compressed(app: "resident", launch: launch, swappedBytes: 80 * Self.mib, swappedInRAM: 0))
        #expect(harness.core.killCandidates().first { $0.app == "resident" }?.reclaimable == 20 * Self.mib)
        try harness.send(.footprint(app: "resident", bytes: 100 * Self.mib))
        #expect(harness.core.killCandidates().first { $0.app == "resident" }?.reclaimable == 20 * Self.mib)
        try harness.send(.pressure(.critical), at: 101)
        #expect(harness.terminations == ["zram memoryPressure"])
    }

    /// What a swapped part takes of RAM cannot be more than that part.
    @Test func aSwappedPartCannotTakeMoreRAMThanItsSize() throws {
        var harness = try Self.device()
        #expect(throws: LifecycleError.self) {
            try harness.send(
                .footprint(app: "zram", bytes: 200 * Self.mib, swapped: 10 * Self.mib, swappedInRAM: 20 * Self.mib))
        }
    }
}
