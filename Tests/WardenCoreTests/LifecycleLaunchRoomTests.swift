import Foundation
import Testing
import WardenCore

/// Room before a launch (rule 9): the sizes learned from an app's launches, and the kills made
/// for them before its spawn.
@Suite struct LifecycleLaunchRoomTests {
    static let mib: Int64 = 1 << 20
    static let total = 1000 * mib

    /// `maps` measured at 300 MiB in an earlier launch and quit; `a` (100 MiB) and `b`
    /// (200 MiB) suspended beside the foreground app `front`; the last sample found
    /// `available` on a 1000 MiB device (`warning_enter` 15%: 150 MiB).
    static func device(available: Int64, memory: MemorySettings = MemorySettings()) throws -> Harness {
        var harness = Harness(
            policy(
                [AppPolicy(name: "maps"), AppPolicy(name: "a"), AppPolicy(name: "b"), AppPolicy(name: "front")],
                memory: memory))
        try harness.send(.open(app: "maps"), at: 1)
        try harness.send(.footprint(app: "maps", bytes: 300 * mib), at: 2)
        try harness.send(.forceQuit(app: "maps"), at: 3)
        try harness.send(.open(app: "a"), at: 4)
        try harness.send(.open(app: "b"), at: 5)
        try harness.send(.open(app: "front"), at: 6)
        try harness.send(.footprint(app: "a", bytes: 100 * mib), at: 7)
        try harness.send(.footprint(app: "b", bytes: 200 * mib), at: 7)
        harness.advance(to: 100)
        #expect(harness.state("a") == .suspended && harness.state("b") == .suspended)
        try harness.send(.memorySample(available: available, total: total), at: 101)
        return harness
    }

    /// Where in the actions `.spawn` of `app` comes; nil if it never does.
    static func spawnIndex(_ app: String, in actions: [LifecycleAction]) -> Int? {
        actions.lastIndex { if case .spawn(app, _, _, _) = $0 { true } else { false } }
    }

    /// The decisions journaled for `app`.
    static func decisions(_ app: String, in harness: Harness) -> [String] {
        harness.journal.compactMap { record in
            guard record.app == app, case .decision(let text) = record.kind else { return nil }
            return text
        }
    }

    /// The expected size is the median of the last launches' peaks: one launch far off does not
    /// move it, and only the last five count.
    @Test func theExpectedSizeIsTheMedianOfTheLastPeaks() {
        var history = LaunchMemoryHistory()
        #expect(history.expected == nil)
        for peaks in [[100, 120], [110, 90], [900], [105], [130, 80]] {
            history.startLaunch()
            for peak in peaks { history.observe(Int64(peak)) }
        }
        // Peaks 120, 110, 900, 105, 130: the median is 120, not the mean of 277.
        #expect(history.expected == 120)
        history.startLaunch()
        history.observe(1000)
        history.startLaunch()
        history.observe(1000)
        // 900, 105, 130, 1000, 1000.
        #expect(history.expected == 900)
        #expect(history.peaks.count <= LaunchMemoryHistory.keptLaunches)
    }

    /// The core learns the peak of each launch from its footprints, and keeps it across a
    /// checkpoint; a checkpoint written before sizes were learned still decodes.
    @Test func theLearnedSizeSurvivesACheckpoint() throws {
        var harness = try Self.device(available: 900 * Self.mib)
        #expect(harness.core.expectedLaunchSize(of: "maps") == 300 * Self.mib)
        #expect(harness.core.expectedLaunchSize(of: "front") == nil)
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: harness.now))
        var restored = Harness(harness.core.policy)
        restored.core = Lifecycle(
            policy: harness.core.policy,
            checkpoint: try JSONDecoder().decode(LifecycleCheckpoint.self, from: json), at: restored.now)
        #expect(restored.core.expectedLaunchSize(of: "maps") == 300 * Self.mib)

        var old = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        func strip(_ value: Any) -> Any {
            if var object = value as? [String: Any] {
                object["memoryHistory"] = nil
                return object.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        old = strip(old) as? [String: Any] ?? [:]
        let oldJSON = try JSONSerialization.data(withJSONObject: old)
        #expect(!String(decoding: oldJSON, as: UTF8.self).contains("memoryHistory"))
        let decoded = try JSONDecoder().decode(LifecycleCheckpoint.self, from: oldJSON)
        let fromOld = Lifecycle(policy: harness.core.policy, checkpoint: decoded, at: restored.now)
        #expect(fromOld.expectedLaunchSize(of: "maps") == nil)
        #expect(fromOld.state(of: "a") == .suspended)
        _ = try harness.send(.open(app: "maps"), at: 102)
    }
}
