import Testing
import WardenCore

/// Rule 9, the culprit who takes the room: an app that grows into the room the last memory kill
/// made goes next, before the bands, while the device stays short.
@Suite struct LifecycleTakenRoomTests {
    static let mib: Int64 = 1 << 20
    static let gib: Int64 = 1 << 30

    /// `first` and `second` suspended (200MiB each; `first` used less recently), `front` in the
    /// foreground at 100MiB, on a 1GiB device; then a critical sample kills `first`, which gives
    /// back 200MiB. With `frontsFirstLaunch`, `front` was launched once before, reached that
    /// footprint and was force-quit.
    static func afterOneKill(
        memory: MemorySettings = MemorySettings(), front: AppPolicy = AppPolicy(name: "front"),
        frontsFirstLaunch: Int64? = nil
    ) throws -> Harness {
        var harness = Harness(
            Policy(memory: memory, apps: [AppPolicy(name: "first"), AppPolicy(name: "second"), front]))
        try harness.send(.memorySample(available: gib, total: gib), at: 0)
        if let peak = frontsFirstLaunch { try launchedOnce(&harness, "front", peak: peak) }
        try harness.send(.footprint(app: "first", bytes: 200 * mib), at: 0)
        try harness.send(.footprint(app: "second", bytes: 200 * mib), at: 0)
        try harness.send(.open(app: "first"), at: 1)
        try harness.send(.open(app: "second"), at: 2)
        try harness.send(.open(app: "front"), at: 3)
        try harness.send(.footprint(app: "front", bytes: 100 * mib), at: 4)
        harness.advance(to: 10)
        try harness.send(.memorySample(available: 10 * mib, total: gib), at: 11)
        return harness
    }

    /// `app` launched once at the harness's start, measured at `peak` and force-quit: its
    /// finished launch's peak is learned.
    static func launchedOnce(_ harness: inout Harness, _ app: String, peak: Int64) throws {
        try harness.send(.open(app: app), at: 0)
        try harness.send(.footprint(app: app, bytes: peak), at: 0)
        try harness.send(.forceQuit(app: app), at: 0)
    }

    /// The decisions journaled on `app`.
    static func decisions(_ harness: Harness, _ app: String) -> [String] {
        harness.journal.compactMap { record in
            guard record.app == app, case .decision(let text) = record.kind else { return nil }
            return text
        }
    }

    /// A foreground app that grows by half the room a kill gave back is killed next, before a
    /// suspended app, and its journal says why.
    @Test func anAppThatGrowsIntoTheRoomIsKilledNext() throws {
        var harness = try Self.afterOneKill()
        #expect(harness.terminations == ["first memoryPressure"])
        try harness.send(.footprint(app: "front", bytes: 280 * Self.mib), at: 12)
        try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
        #expect(harness.terminations == ["first memoryPressure", "front memoryPressure"])
        #expect(harness.state("second") == .suspended)
        #expect(
            Self.decisions(harness, "front").contains(
                "Chosen by the memory killer: it grew by 180MiB into the 200MiB the kill of \"first\" gave back, and an app that takes the room of the last kill goes first."
            ))
        let report = harness.journal.compactMap { record -> MemoryKillReport? in
            guard record.app == "front", case .memoryKill(let report) = record.kind else { return nil }
            return report
        }.first
        #expect(
            report?.tookRoom == MemoryKillReport.TookRoom(growth: 180 * Self.mib, room: 200 * Self.mib, madeBy: "first")
        )
        #expect(
            report?.others.first { $0.app == "second" }?.reason
                == "it did not grow by half of the 200MiB the kill of \"first\" gave back; an app that did goes first")
    }

    /// Half the room is the bar: growth of 99MiB into a room of 200MiB keeps the band order (the
    /// suspended app goes next), growth of 100MiB takes the room.
    @Test func halfTheRoomIsTheBar() throws {
        var below = try Self.afterOneKill()
        try below.send(.footprint(app: "front", bytes: 199 * Self.mib), at: 12)
        try below.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
        #expect(below.terminations == ["first memoryPressure", "second memoryPressure"])
        #expect(below.state("front") == .active)

        var half = try Self.afterOneKill()
        try half.send(.footprint(app: "front", bytes: 200 * Self.mib), at: 12)
        try half.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
        #expect(half.terminations == ["first memoryPressure", "front memoryPressure"])
    }

    /// A warning level between the kill and the next critical sample keeps the room; so does a
    /// normal level for a minute (the kill's own room ended the shortage, and the app took it
    /// back); a normal level held for a minute forgets it, and the band order holds again.
    @Test func theRoomIsKeptWhileTheDeviceStaysShort() throws {
        var warning = try Self.afterOneKill()
        try warning.send(.memorySample(available: 140 * Self.mib, total: Self.gib), at: 12)
        #expect(warning.core.memoryLevel == .warning)
        try warning.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 13)
        try warning.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 14)
        #expect(warning.terminations == ["first memoryPressure", "front memoryPressure"])

        var briefly = try Self.afterOneKill()
        try briefly.send(.memorySample(available: Self.gib / 2, total: Self.gib), at: 12)
        #expect(briefly.core.memoryLevel == .normal)
        try briefly.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 13)
        try briefly.send(.memorySample(available: Self.gib / 2, total: Self.gib), at: 71)
        try briefly.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 71.5)
        #expect(briefly.terminations == ["first memoryPressure", "front memoryPressure"])

        var normal = try Self.afterOneKill()
        try normal.send(.memorySample(available: Self.gib / 2, total: Self.gib), at: 12)
        #expect(normal.core.memoryLevel == .normal)
        try normal.send(.memorySample(available: Self.gib / 2, total: Self.gib), at: 72)
        try normal.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 73)
        try normal.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 74)
        #expect(normal.terminations == ["first memoryPressure", "second memoryPressure"])
    }

    /// Growth counts within one launch: the same footprint reached by a launch made since the
    /// kill is not growth into the room, and the band order holds.
    @Test func anAppLaunchedAgainSinceTheKillIsNotCounted() throws {
        var same = try Self.afterOneKill()
        try same.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 14)
        try same.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 15)
        #expect(same.terminations == ["first memoryPressure", "front memoryPressure"])

        var again = try Self.afterOneKill()
        try again.send(
            .processExited(app: "front", launch: again.launches["front"] ?? 0, end: .exited(code: 0)), at: 12)
        try again.send(.open(app: "front"), at: 13)
        try again.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 14)
        try again.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 15)
        #expect(
            again.terminations.filter { $0.hasSuffix("memoryPressure") }.prefix(2) == [
                "first memoryPressure", "second memoryPressure",
            ])
    }

    /// An app still within the peak its finished launches reached grows as it does in each launch,
    /// not into the room: the band order holds (the suspended app goes next) until it passes that
    /// peak, and then it took the room.
    @Test func anAppWithinItsUsualPeakDidNotTakeTheRoom() throws {
        func grown(to footprint: Int64) throws -> Harness {
            var harness = try Self.afterOneKill(frontsFirstLaunch: 300 * Self.mib)
            try harness.send(.footprint(app: "front", bytes: footprint), at: 12)
            try harness.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
            return harness
        }
        let within = try grown(to: 300 * Self.mib)
        #expect(within.terminations == ["front userForceQuit", "first memoryPressure", "second memoryPressure"])
        #expect(within.state("front") == .active)

        let past = try grown(to: 301 * Self.mib)
        #expect(past.terminations == ["front userForceQuit", "first memoryPressure", "front memoryPressure"])
        #expect(past.state("second") == .suspended)
    }

    /// Only an app the killer may choose is chosen for the room it took: the same growth makes
    /// an unprotected foreground app go first, but not a protected app, nor a foreground app
    /// under `kill_foreground = false`.
    @Test func protectedAndKeptForegroundAppsAreNotChosenForTheRoom() throws {
        var plain = try Self.afterOneKill()
        try plain.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 12)
        try plain.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
        #expect(plain.terminations == ["first memoryPressure", "front memoryPressure"])

        var front = AppPolicy(name: "front")
        front.isProtected = true
        var protected = try Self.afterOneKill(front: front)
        try protected.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 12)
        try protected.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
        #expect(protected.terminations == ["first memoryPressure", "second memoryPressure"])

        var kept = try Self.afterOneKill(memory: MemorySettings(killForeground: false))
        try kept.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 12)
        try kept.send(.memorySample(available: 10 * Self.mib, total: Self.gib), at: 13)
        #expect(kept.terminations == ["first memoryPressure", "second memoryPressure"])
    }

    /// `idle` (300MiB) suspended beside two foreground apps, `steady` at 100MiB and `runaway`;
    /// a critical sample kills `idle`; then `steady` grows to `steadyTo` and `runaway` to 170MiB,
    /// and a second critical sample chooses. With `steadysFirstLaunch`, `steady` was launched
    /// once before, reached that footprint and was force-quit. Returns the harness and why
    /// `steady` was passed over for the second victim.
    static func twoGrowers(steadyTo: Int64, steadysFirstLaunch: Int64? = nil) throws -> (Harness, String?) {
        var harness = Harness(
            Policy(
                foregroundSlots: 2,
                apps: [AppPolicy(name: "idle"), AppPolicy(name: "steady"), AppPolicy(name: "runaway")]))
        try harness.send(.memorySample(available: gib, total: gib), at: 0)
        if let peak = steadysFirstLaunch { try launchedOnce(&harness, "steady", peak: peak) }
        try harness.send(.footprint(app: "idle", bytes: 300 * mib), at: 0)
        try harness.send(.open(app: "idle"), at: 1)
        try harness.send(.open(app: "steady"), at: 2)
        try harness.send(.open(app: "runaway"), at: 3)
        try harness.send(.footprint(app: "steady", bytes: 100 * mib), at: 4)
        harness.advance(to: 10)
        #expect(harness.state("idle") == .suspended)
        try harness.send(.memorySample(available: 10 * mib, total: gib), at: 11)
        #expect(harness.terminations.last == "idle memoryPressure")
        try harness.send(.footprint(app: "steady", bytes: steadyTo), at: 12)
        try harness.send(.footprint(app: "runaway", bytes: 170 * mib), at: 12)
        try harness.send(.memorySample(available: 10 * mib, total: gib), at: 13)
        let reason = harness.journal.compactMap { record -> String? in
            guard record.app != "steady", case .memoryKill(let report) = record.kind else { return nil }
            return report.others.first { $0.app == "steady" }?.reason
        }.last
        return (harness, reason)
    }

    /// Of two apps that grew into the room, the one that grew more goes first, even when the
    /// other is the larger (the band order would take it).
    @Test func theLargestGrowthGoesFirst() throws {
        let (harness, reason) = try Self.twoGrowers(steadyTo: 260 * Self.mib)
        #expect(harness.terminations == ["idle memoryPressure", "runaway memoryPressure"])
        #expect(
            reason == "it grew by 160MiB into the room the kill of \"idle\" gave back, less than \"runaway\" (170MiB)")
    }

    /// An app that grew more into the room than another, but is still within the peak of its
    /// finished launches, is passed over for the other, and its report says why.
    @Test func anAppWithinItsUsualPeakIsPassedOverForTheOneThatTookTheRoom() throws {
        let (harness, reason) = try Self.twoGrowers(steadyTo: 290 * Self.mib, steadysFirstLaunch: 300 * Self.mib)
        #expect(
            harness.terminations == ["steady userForceQuit", "idle memoryPressure", "runaway memoryPressure"])
        #expect(
            reason
                == "it is still within the 300MiB its last launches reached; an app that grew into the room the kill of \"idle\" gave back goes first"
        )
    }
}
