import Foundation
import Testing
import WardenCore

/// Cold launches: opens of an app the device had killed, counted per app and in total.
@Suite struct LifecycleColdLaunchTests {
    /// `mail` and `maps` suspended beside `front`.
    static func device() throws -> Harness {
        var harness = Harness(
            Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps"), AppPolicy(name: "front")]))
        try harness.send(.open(app: "mail"), at: 1)
        try harness.send(.open(app: "maps"), at: 2)
        try harness.send(.open(app: "front"), at: 3)
        harness.advance(to: 100)
        #expect(harness.state("mail") == .suspended && harness.state("maps") == .suspended)
        return harness
    }

    /// An app killed for memory and opened again is a cold launch after a kill: its `$AppStart`
    /// names the kill's reason, and it is counted for the app and in the total; first launches
    /// and hot starts are not.
    @Test func anOpenOfAnAppTheDeviceKilledIsCounted() throws {
        var harness = try Self.device()
        #expect(harness.core.coldLaunchCount == 0)
        try harness.send(.footprint(app: "mail", bytes: 200 << 20), at: 100)
        try harness.send(.pressure(.critical), at: 101)
        #expect(harness.terminations == ["mail memoryPressure"])
        try harness.send(.open(app: "mail"), at: 110)
        try harness.send(.open(app: "maps"), at: 120)
        let starts = harness.analyticsEvents.filter { if case .appStart = $0 { true } else { false } }
        #expect(
            starts.suffix(2) == [
                .appStart(cold: true, afterPassive: false, afterKill: .memoryPressure),
                .appStart(cold: false, afterPassive: false),
            ])
        #expect(harness.core.snapshot(of: "mail", at: harness.now)?.coldLaunches == 1)
        #expect(harness.core.snapshot(of: "maps", at: harness.now)?.coldLaunches == 0)
        #expect(harness.core.coldLaunchCount == 1)
        #expect(
            harness.journal.contains {
                if case .stateChange(.notRunning, .inactive, let because) = $0.kind {
                    $0.app == "mail" && because == "launched by the user after the device had killed it"
                } else {
                    false
                }
            })
    }

    /// An app that exited, or that the user force-quit, comes back with an ordinary cold launch;
    /// a reinstall forgets the kill.
    @Test func anOpenAfterTheAppsOwnEndOrTheUsersIsNotCounted() throws {
        var harness = try Self.device()
        try harness.send(.forceQuit(app: "maps"), at: 101)
        try harness.send(.open(app: "maps"), at: 102)
        try harness.send(.footprint(app: "mail", bytes: 200 << 20), at: 103)
        try harness.send(.pressure(.critical), at: 104)
        #expect(harness.terminations == ["maps userForceQuit", "mail memoryPressure"])
        try harness.send(.reset(app: "mail"), at: 105)
        try harness.send(.open(app: "mail"), at: 106)
        #expect(harness.state("mail") == .active)
        #expect(harness.core.coldLaunchCount == 0)
    }

    /// The counts and the kill an open would follow outlive a restart: the checkpoint keeps them.
    @Test func theCountsSurviveACheckpoint() throws {
        var harness = try Self.device()
        try harness.send(.footprint(app: "mail", bytes: 200 << 20), at: 100)
        try harness.send(.pressure(.critical), at: 101)
        try harness.send(.open(app: "mail"), at: 110)
        try harness.send(.footprint(app: "maps", bytes: 300 << 20), at: 111)
        try harness.send(.pressure(.critical), at: 112)
        #expect(harness.terminations == ["mail memoryPressure", "maps memoryPressure"])
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: harness.now))
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        var restored = Harness(harness.core.policy)
        restored.core = Lifecycle(policy: harness.core.policy, checkpoint: checkpoint, at: restored.now)
        #expect(restored.core.coldLaunchCount == 1)
        try restored.send(.open(app: "maps"))
        #expect(restored.core.snapshot(of: "maps", at: restored.now)?.coldLaunches == 1)
        #expect(restored.core.snapshot(of: "mail", at: restored.now)?.coldLaunches == 1)
        #expect(restored.core.coldLaunchCount == 2)
    }
}
