import Foundation
import Testing
import WardenCore

private func candidate(
    _ app: String, _ band: KillBand = .suspended, mib: Int64, opens: Double, relaunchMiB: Int64? = nil
) -> KillCandidate {
    KillCandidate(
        app: app, band: band, footprint: mib << 20, lastUsed: Instant(sinceOrigin: .seconds(0)), isProtected: false,
        openWeight: opens, relaunchSize: (relaunchMiB ?? mib) << 20)
}

/// `[memory] kill_order`: `largest` (rule 9 as written) or `least_missed`, which weighs the
/// person's recent opens and the relaunch's size against what a kill gives back in the suspended band.
@Suite struct KillOrderTests {
    /// `camera`, large and opened often, and `atlas`, smaller and opened once.
    static let suspended = [
        candidate("camera", mib: 300, opens: 3),
        candidate("atlas", mib: 200, opens: 1),
        candidate("notes", mib: 100, opens: 4),
    ]

    /// The built-in order is rule 9's largest first, whatever the opens weigh.
    @Test func theDefaultOrderIsLargestFirst() {
        #expect(MemorySettings().killOrder == .largest)
        #expect(VictimRanking.rank(Self.suspended, killForeground: true).map(\.app) == ["camera", "atlas", "notes"])
        #expect(
            VictimRanking.rank(Self.suspended, killForeground: true, order: .largest).map(\.app) == [
                "camera", "atlas", "notes",
            ])
    }

    /// Under `least_missed` the suspended app whose kill gives back the most per unit of what
    /// losing it costs goes first: `atlas` (200MiB for 1 × 200MiB) before `camera` (300MiB for
    /// 3 × 300MiB), which `largest` kills first; the victim and the first few agree with the rank.
    @Test func theLeastMissedAppGoesFirstUnderLeastMissed() {
        let ranked = VictimRanking.rank(Self.suspended, killForeground: true, order: .leastMissed)
        #expect(ranked.map(\.app) == ["atlas", "camera", "notes"])
        #expect(VictimRanking.victim(among: Self.suspended, killForeground: true, order: .leastMissed)?.app == "atlas")
        #expect(
            VictimRanking.first(2, of: Self.suspended, killForeground: true, order: .leastMissed).map(\.app) == [
                "atlas", "camera",
            ])
    }

    /// An app the person never opened costs nothing to lose and goes first, however small; two
    /// such apps keep `largest`'s order between them.
    @Test func anAppNeverOpenedGoesFirstAndTiesKeepLargest() {
        let candidates =
            Self.suspended + [
                candidate("widget", mib: 20, opens: 0), candidate("updater", mib: 40, opens: 0),
            ]
        #expect(
            VictimRanking.rank(candidates, killForeground: true, order: .leastMissed).map(\.app) == [
                "updater", "widget", "atlas", "camera", "notes",
            ])
    }

    /// The other bands keep `largest`'s order under `least_missed`, and the bands their order.
    @Test func otherBandsKeepLargestFirst() {
        let candidates = [
            candidate("big", .idleBackground, mib: 300, opens: 9),
            candidate("small", .idleBackground, mib: 100, opens: 0),
            candidate("frozen", .suspended, mib: 10, opens: 9),
        ]
        #expect(
            VictimRanking.rank(candidates, killForeground: true, order: .leastMissed).map(\.app) == [
                "frozen", "big", "small",
            ])
    }

    /// The report's sentence under `least_missed` names both sides of the weighing.
    @Test func whyNotChosenStatesTheWeighing() {
        let sentence = VictimRanking.whyNotChosen(
            Self.suspended[0], victim: Self.suspended[1], killForeground: true, order: .leastMissed)
        #expect(
            sentence
                == "missed more (kill_order = \"least_missed\"): its kill gives back 300MiB for a relaunch of 300MiB and opens weighing 3.0, where the kill of \"atlas\" gives back 200MiB for a relaunch of 200MiB and opens weighing 1.0"
        )
        #expect(
            VictimRanking.whyNotChosen(Self.suspended[1], victim: Self.suspended[0], killForeground: true)
                .hasPrefix("its kill gives back less"))
    }

    /// An open weighs 1 at once, 1/2 an hour later, 1/3 two hours later; the weights add up.
    @Test func opensWeighLessAsTheyAge() {
        let now = Instant(sinceOrigin: .seconds(7_200))
        #expect(KillOrder.openWeight(of: nil, at: now) == 0)
        #expect(KillOrder.openWeight(of: [now], at: now) == 1)
        let opens = [Instant(sinceOrigin: .seconds(0)), Instant(sinceOrigin: .seconds(3_600))]
        #expect(abs(KillOrder.openWeight(of: opens, at: now) - (1.0 / 3 + 1.0 / 2)) < 1e-9)
    }

    // MARK: The killer

    /// `atlas` opened once, `camera` three times, both suspended beside `front`; `camera` is the larger.
    static func device(order: KillOrder) throws -> Harness {
        var policy = Policy(apps: [AppPolicy(name: "atlas"), AppPolicy(name: "camera"), AppPolicy(name: "front")])
        policy.memory.killOrder = order
        policy.memory.fairShare = nil
        var harness = Harness(policy)
        try harness.send(.open(app: "atlas"), at: 0)
        for second in stride(from: 1.0, through: 5, by: 2) {
            try harness.send(.open(app: "camera"), at: second)
            try harness.send(.open(app: "front"), at: second + 1)
        }
        try harness.send(.footprint(app: "atlas", bytes: 250 << 20), at: 7)
        try harness.send(.footprint(app: "camera", bytes: 300 << 20), at: 7)
        harness.advance(to: 100)
        #expect(harness.state("atlas") == .suspended && harness.state("camera") == .suspended)
        return harness
    }

    /// The killer follows the policy's order: `largest` kills `camera`, `least_missed` kills
    /// `atlas`, and its report says why `camera` was passed over.
    @Test func theKillerFollowsThePolicysOrder() throws {
        var largest = try Self.device(order: .largest)
        try largest.send(.pressure(.critical), at: 101)
        #expect(largest.terminations == ["camera memoryPressure"])

        var leastMissed = try Self.device(order: .leastMissed)
        try leastMissed.send(.pressure(.critical), at: 101)
        #expect(leastMissed.terminations == ["atlas memoryPressure"])
        let report = try #require(
            leastMissed.journal.lazy.compactMap { record -> MemoryKillReport? in
                if case .memoryKill(let report) = record.kind { report } else { nil }
            }.first)
        let camera = try #require(report.others.first { $0.app == "camera" })
        #expect(camera.reason.hasPrefix("missed more (kill_order = \"least_missed\"): its kill gives back 300MiB"))
        #expect(
            leastMissed.journal.contains {
                if case .decision(let text) = $0.kind { text.contains("for what losing it costs") } else { false }
            })
    }

    /// The opens outlive a restart: a core restored from the checkpoint, on another clock, still
    /// kills `atlas` first, where without them it would fall back on `camera`, the larger.
    @Test func theOpensSurviveACheckpoint() throws {
        let harness = try Self.device(order: .leastMissed)
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: harness.now))
        #expect(String(decoding: json, as: UTF8.self).contains("userOpens"))
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        var restored = Harness(harness.core.policy)
        restored.core = Lifecycle(policy: harness.core.policy, checkpoint: checkpoint, at: restored.now)
        #expect(restored.state("atlas") == .suspended && restored.state("camera") == .suspended)
        try restored.send(.pressure(.critical))
        #expect(restored.terminations == ["atlas memoryPressure"])
    }

    /// A reset is a reinstall: the app's opens are forgotten with the rest of its history, so
    /// `least_missed` weighs it as an app never opened; the other apps keep theirs.
    @Test func aResetForgetsTheOpens() throws {
        var harness = try Self.device(order: .leastMissed)
        try harness.send(.reset(app: "camera"), at: 101)
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: harness.now))
        let object = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
        let apps = try #require(object["apps"] as? [[String: Any]])
        let opens = Dictionary(
            uniqueKeysWithValues: apps.compactMap { app in
                (app["name"] as? String).map { ($0, (app["userOpens"] as? [Any])?.count ?? 0) }
            })
        #expect(opens["camera"] == 0)
        #expect(opens["atlas"] == 1)
    }

    /// A checkpoint written before the opens were kept loads: its apps have no opens, so the
    /// restored core ranks them as `largest` does and kills `camera`.
    @Test func aCheckpointWithoutOpensLoads() throws {
        let harness = try Self.device(order: .leastMissed)
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: harness.now))
        var object = try #require(JSONSerialization.jsonObject(with: json) as? [String: Any])
        let apps = try #require(object["apps"] as? [[String: Any]])
        #expect(apps.contains { $0["userOpens"] != nil })
        object["apps"] = apps.map { app in app.filter { $0.key != "userOpens" } }
        let old = try JSONSerialization.data(withJSONObject: object)
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: old)
        var restored = Harness(harness.core.policy)
        restored.core = Lifecycle(policy: harness.core.policy, checkpoint: checkpoint, at: restored.now)
        try restored.send(.pressure(.critical))
        #expect(restored.terminations == ["camera memoryPressure"])
    }
}
