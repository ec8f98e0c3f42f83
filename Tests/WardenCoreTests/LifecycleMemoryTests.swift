import Testing
import WardenCore

@Suite struct LifecycleMemoryTests {
    static let mib: Int64 = 1 << 20

    /// Builds a device where `idle` is suspended, `grace` is in its grace period, `window` is in a
    /// fetch window... by driving the core: every app is opened, sent home, and left in a band.
    static func bandedDevice(killForeground: Bool = true) throws -> Harness {
        var fetcher = AppPolicy(name: "window", backgroundModes: [.fetch], fetchInterval: .every(.seconds(100)))
        fetcher.settings.fetch.coalesce = .zero
        var graceful = AppPolicy(name: "grace")
        graceful.settings.background.grace = .seconds(1000)
        let apps = [
            AppPolicy(name: "front"), AppPolicy(name: "task"), fetcher, graceful, AppPolicy(name: "idle"),
        ]
        var harness = Harness(Policy(memory: MemorySettings(killForeground: killForeground), apps: apps))
        for app in ["idle", "grace", "task", "window"] {
            try harness.send(.footprint(app: app, bytes: 100 * mib), at: 0)
        }
        // The foreground app is the largest, so band alone decides.
        try harness.send(.footprint(app: "front", bytes: 900 * mib), at: 0)
        try harness.send(.open(app: "idle"), at: 1)
        try harness.send(.open(app: "window"), at: 2)
        try harness.send(.open(app: "task"), at: 3)
        try harness.send(.beginTask(app: "task", name: "upload"), at: 3)
        try harness.send(.open(app: "grace"), at: 4)
        try harness.send(.open(app: "front"), at: 5)
        harness.advance(to: 100)
        return harness
    }

    /// Critical pressure kills one victim per event, in band order: suspended, idle background,
    /// fetch window, background task, foreground.
    @Test func criticalPressureKillsOneVictimPerEventInBandOrder() throws {
        var harness = try LifecycleMemoryTests.bandedDevice()
        #expect(harness.state("idle") == .suspended)
        #expect(harness.state("grace") == .background)
        #expect(harness.state("window") == .background)
        #expect(harness.state("task") == .background)
        #expect(harness.state("front") == .active)
        for second in 101...105 {
            try harness.send(.pressure(.critical), at: Double(second))
            #expect(harness.terminations.count == second - 100)
        }
        #expect(
            harness.terminations == [
                "idle memoryPressure", "grace memoryPressure", "window memoryPressure", "task memoryPressure",
                "front memoryPressure",
            ])
    }

    /// The killer kills in exactly the order `VictimRanking.rank` gives for the core's own
    /// candidates, over every band, a footprint tie broken by last use, and a protected app.
    @Test(arguments: [true, false])
    func successiveKillsFollowTheRankingOfTheCoresCandidates(killForeground: Bool) throws {
        var fetcher = AppPolicy(name: "window", backgroundModes: [.fetch], fetchInterval: .every(.seconds(100)))
        fetcher.settings.fetch.coalesce = .zero
        var graceful = AppPolicy(name: "grace")
        graceful.settings.background.grace = .seconds(1000)
        let apps = [
            AppPolicy(name: "front"), AppPolicy(name: "task"), fetcher, graceful, AppPolicy(name: "idle"),
            AppPolicy(name: "twin"), AppPolicy(name: "big"), AppPolicy(name: "keeper", isProtected: true),
        ]
        var harness = Harness(Policy(memory: MemorySettings(killForeground: killForeground), apps: apps))
        for app in ["idle", "twin", "grace", "task", "window"] {
            try harness.send(.footprint(app: app, bytes: 100 * Self.mib), at: 0)
        }
        try harness.send(.footprint(app: "big", bytes: 300 * Self.mib), at: 0)
        try harness.send(.footprint(app: "keeper", bytes: 900 * Self.mib), at: 0)
        try harness.send(.footprint(app: "front", bytes: 900 * Self.mib), at: 0)
        for (second, app) in [(1.0, "idle"), (1.5, "twin"), (1.6, "keeper"), (1.8, "big"), (2, "window"), (3, "task")] {
            try harness.send(.open(app: app), at: second)
        }
        try harness.send(.beginTask(app: "task", name: "upload"), at: 3)
        try harness.send(.open(app: "grace"), at: 4)
        try harness.send(.open(app: "front"), at: 5)
        harness.advance(to: 100)

        let ranked = VictimRanking.rank(harness.core.killCandidates(), killForeground: killForeground).map(\.app)
        let expected = ["big", "idle", "twin", "grace", "window", "task"] + (killForeground ? ["front"] : [])
        #expect(ranked == expected)
        for (offset, app) in ranked.enumerated() {
            let head = VictimRanking.rank(harness.core.killCandidates(), killForeground: killForeground).first
            #expect(head?.app == app)
            try harness.send(.pressure(.critical), at: 101 + Double(offset))
            #expect(harness.terminations.last == "\(app) memoryPressure")
        }
        #expect(harness.terminations == ranked.map { "\($0) memoryPressure" })
        #expect(VictimRanking.rank(harness.core.killCandidates(), killForeground: killForeground).isEmpty)
        #expect(harness.core.killCandidates().map(\.app).contains("keeper"))
    }

    /// The killer reads each running app's band in place from its record, and reads the band
    /// `status` shows: suspended, idle background, fetch window, background task, foreground.
    @Test func theKillerReadsTheBandStatusShows() throws {
        let harness = try Self.bandedDevice()
        let bands = Dictionary(uniqueKeysWithValues: harness.core.killCandidates().map { ($0.app, $0.band) })
        #expect(
            bands == [
                "idle": .suspended, "grace": .idleBackground, "window": .backgroundWindow, "task": .backgroundTask,
                "front": .foreground,
            ])
        for snapshot in harness.core.snapshots(at: Instant(sinceOrigin: .seconds(100))) {
            #expect(snapshot.band == bands[snapshot.name], "\(snapshot.name)")
        }
    }

    /// A kill's report lists the apps that may be killed in kill order, then those that may not
    /// (protected, or in the foreground without `kill_foreground`), each with why it was passed over.
    @Test func aKillReportListsTheKillableInOrderThenThoseThatMayNotBeKilled() throws {
        var harness = try Self.bandedDevice(killForeground: false)
        try harness.send(.footprint(app: "idle", bytes: 50 * Self.mib), at: 100)
        let actions = try harness.send(.pressure(.critical), at: 101)
        let report = actions.lazy.compactMap { action -> MemoryKillReport? in
            guard case .journal(let record) = action, case .memoryKill(let report) = record.kind else { return nil }
            return report
        }.first
        #expect(harness.terminations == ["idle memoryPressure"])
        #expect(report?.others.map(\.app) == ["grace", "window", "task", "front"])
        #expect(report?.others.last?.reason == "in the foreground, killed only with kill_foreground = true")
        #expect(report?.others.first?.reason == "in the idle-background band, killed after the suspended band")
        #expect(report?.unlisted == 0)
    }

    /// With kill_foreground = false the foreground app survives, and a critical event with nobody to kill is journaled.
    @Test func foregroundAppIsSparedWithoutKillForeground() throws {
        var harness = try Self.bandedDevice(killForeground: false)
        for second in 101...105 {
            try harness.send(.pressure(.critical), at: Double(second))
        }
        #expect(harness.terminations.count == 4)
        #expect(harness.state("front") == .active)
        #expect(harness.journal.last?.kind == .decision("Memory is critical but no app may be killed."))
        #expect(harness.journal.last?.app == Lifecycle.systemJournalName)
    }

    /// Inside a band the largest footprint goes first, then the least recently used, then the name.
    @Test func tiesInABandGoToTheLargestThenLeastRecentlyUsedThenName() throws {
        let names = ["b", "a", "old", "big"]
        var harness = Harness(Policy(foregroundSlots: 2, apps: names.map { AppPolicy(name: $0) }))
        try harness.send(.footprint(app: "big", bytes: 200 * Self.mib), at: 0)
        for name in ["a", "b", "old"] {
            try harness.send(.footprint(app: name, bytes: 100 * Self.mib), at: 0)
        }
        try harness.send(.open(app: "big"), at: 0)
        try harness.send(.open(app: "old"), at: 0)
        try harness.send(.home, at: 1)
        try harness.send(.open(app: "b"), at: 2)
        try harness.send(.open(app: "a"), at: 2)
        try harness.send(.home, at: 3)
        harness.advance(to: 50)
        for second in 51...54 {
            try harness.send(.pressure(.critical), at: Double(second))
        }
        #expect(harness.terminations.map { $0.split(separator: " ")[0] } == ["big", "old", "a", "b"])
    }

    /// A protected app is never chosen.
    @Test func protectedAppIsNeverChosen() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "keep", isProtected: true), AppPolicy(name: "fg")]))
        try harness.send(.footprint(app: "keep", bytes: 900 * Self.mib), at: 0)
        try harness.send(.open(app: "keep"), at: 0)
        try harness.send(.open(app: "fg"), at: 1)
        harness.advance(to: 20)
        #expect(harness.state("keep") == .suspended)
        try harness.send(.pressure(.critical), at: 21)
        try harness.send(.pressure(.critical), at: 22)
        #expect(harness.terminations == ["fg memoryPressure"])
        #expect(harness.state("keep") == .suspended)
    }

    /// Memory warnings reach running, not suspended apps, at most once per warning_interval.
    @Test func memoryWarningsRespectTheInterval() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "fg"), AppPolicy(name: "sleepy")]))
        try harness.send(.open(app: "sleepy"), at: 0)
        try harness.send(.open(app: "fg"), at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.warning), at: 10)
        try harness.send(.pressure(.warning), at: 20)
        try harness.send(.pressure(.warning), at: 40)
        #expect(harness.messages(to: "fg").filter { $0 == .memoryWarning }.count == 2)
        #expect(!harness.messages(to: "sleepy").contains(.memoryWarning))
    }

    /// Memory samples follow the thresholds with hysteresis: each sample below critical_enter kills
    /// one victim, and samples between enter and exit keep killing until available reaches critical_exit.
    @Test func memorySamplesKillWithHysteresis() throws {
        let names = ["a", "b", "c", "fg"]
        var harness = Harness(Policy(apps: names.map { AppPolicy(name: $0) }))
        for name in names { try harness.send(.footprint(app: name, bytes: 10 * Self.mib), at: 0) }
        for (offset, name) in names.enumerated() { try harness.send(.open(app: name), at: Double(offset)) }
        harness.advance(to: 30)
        let total: Int64 = 1000
        try harness.send(.memorySample(available: 60, total: total), at: 31)
        #expect(harness.terminations.isEmpty)
        try harness.send(.memorySample(available: 40, total: total), at: 32)
        #expect(harness.terminations.count == 1)
        try harness.send(.memorySample(available: 70, total: total), at: 33)
        #expect(harness.terminations.count == 2)
        try harness.send(.memorySample(available: 100, total: total), at: 34)
        #expect(harness.terminations.count == 2)
        try harness.send(.memorySample(available: 70, total: total), at: 35)
        #expect(harness.terminations.count == 2)
    }

    /// A footprint change of a suspended app updates its oom_score_adj.
    @Test func footprintChangeOfASuspendedAppUpdatesItsScore() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        let out = try harness.send(.footprint(app: "mail", bytes: 1 << 30), at: 11)
        let expected = OOMScore.score(band: .suspended, footprint: 1 << 30, isProtected: false)
        #expect(out == [.setOOMScore(app: "mail", band: .suspended, score: expected)])
    }

    /// An app killed in the middle of its fetch window gets no further fetch wake until it is opened.
    @Test func appKilledDuringAFetchIsNotWokenAgain() throws {
        var harness = try LifecycleMemoryTests.bandedDevice()
        for second in 101...103 {
            try harness.send(.pressure(.critical), at: Double(second))
        }
        #expect(harness.terminations.last == "window memoryPressure")
        #expect(harness.deadline("window", .fetchWake) == nil)
    }

    /// A kill's report lists the first `MemoryKillReport.listedLimit` other candidates, in kill
    /// order, and counts the rest: with 25 suspended apps, the 20 largest after the victim.
    @Test func aKillReportListsTheNextCandidatesAndCountsTheRest() throws {
        let names = (0..<25).map { "app\($0)" }
        var harness = Harness(Policy(apps: names.map { AppPolicy(name: $0) }))
        for (index, name) in names.enumerated() {
            try harness.send(.footprint(app: name, bytes: Int64(index + 1) * Self.mib), at: 0)
            try harness.send(.open(app: name), at: Double(index + 1))
        }
        try harness.send(.home, at: 30)
        harness.advance(to: 100)
        #expect(names.allSatisfy { harness.state($0) == .suspended })
        let actions = try harness.send(.pressure(.critical), at: 101)
        let reports = actions.compactMap { action -> MemoryKillReport? in
            guard case .journal(let record) = action, case .memoryKill(let report) = record.kind else { return nil }
            return report
        }
        #expect(reports.count == 1)
        #expect(reports.first?.others.map(\.app) == (4...23).reversed().map { "app\($0)" })
        #expect(reports.first?.unlisted == 4)
    }

    /// A sample decides nothing only while the level stays normal on a device of the same size:
    /// the daemon skips the killer's candidates for it, and for no other.
    @Test func onlyASampleThatKeepsTheLevelNormalOnTheSameDeviceDecidesNothing() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail")]))
        #expect(!harness.core.sampleDecidesNothing(available: 900 * Self.mib, total: 1024 * Self.mib))
        try harness.send(.memorySample(available: 900 * Self.mib, total: 1024 * Self.mib), at: 1)
        #expect(harness.core.sampleDecidesNothing(available: 800 * Self.mib, total: 1024 * Self.mib))
        #expect(!harness.core.sampleDecidesNothing(available: 800 * Self.mib, total: 2048 * Self.mib))
        #expect(!harness.core.sampleDecidesNothing(available: 10 * Self.mib, total: 1024 * Self.mib))
        try harness.send(.memorySample(available: 10 * Self.mib, total: 1024 * Self.mib), at: 2)
        #expect(!harness.core.sampleDecidesNothing(available: 900 * Self.mib, total: 1024 * Self.mib))
    }

    /// The apps the memory watch measures before a sample that may kill are the running ones,
    /// in declaration order, the suspended ones only when asked for (the freezer check reads
    /// those apart); and the footprint it
    /// compares a measurement with is the one `status` shows, zero once an app has ended.
    @Test func theWatchMeasuresTheRunningAppsAndComparesWithTheFootprintStatusShows() throws {
        var harness = try Self.bandedDevice()
        #expect(harness.state("idle") == .suspended)
        try harness.send(.forceQuit(app: "grace"), at: 101)
        #expect(harness.state("grace") == .notRunning)
        let awake = ["front", "task", "window", "grace", "idle"].filter {
            harness.state($0).map { $0 != .notRunning && $0 != .suspended } ?? false
        }
        #expect(harness.core.runningApps(includingSuspended: false) == awake)
        #expect(awake.contains("front") && awake.contains("task"))
        #expect(harness.core.runningApps(includingSuspended: true) == awake + ["idle"])
        #expect(harness.core.apps(in: .suspended).map(\.name) == ["idle"])
        #expect(harness.core.apps(in: .notRunning).map(\.name) == ["grace"])

        try harness.send(.footprint(app: "idle", bytes: 100 * Self.mib, swapped: 60 * Self.mib), at: 102)
        for app in ["front", "idle", "grace"] {
            let snapshot = try #require(harness.core.snapshot(of: app, at: harness.now))
            let footprint = try #require(harness.core.footprint(of: app))
            #expect(footprint.bytes == snapshot.footprint && footprint.swapped == snapshot.swappedBytes, "\(app)")
        }
        #expect(harness.core.footprint(of: "idle")?.swapped == 60 * Self.mib)
        #expect(harness.core.footprint(of: "grace")?.bytes == 0)
        #expect(harness.core.footprint(of: "front")?.bytes == 900 * Self.mib)
        #expect(harness.core.footprint(of: "ghost") == nil)
    }
}

/// The killer across samples while a victim is still dying (rule 9, one victim at a time).
@Suite struct LifecycleDyingVictimTests {
    static let mib: Int64 = 1 << 20

    /// Four suspended apps of 300, 200, 1 and 1 MiB beside a foreground app, on a device of
    /// 1000 MiB (critical below 50 MiB, left at 100 MiB); the core alone, so that no process end
    /// is reported unless the test sends it.
    static func suspendedDevice(memory: MemorySettings = MemorySettings()) throws -> Lifecycle {
        let sizes: [(String, Int64)] = [("a", 300), ("b", 200), ("c", 1), ("d", 1), ("fg", 10)]
        var harness = Harness(Policy(memory: memory, apps: sizes.map { AppPolicy(name: $0.0) }))
        for (name, size) in sizes { try harness.send(.footprint(app: name, bytes: size * mib), at: 0) }
        for (offset, (name, _)) in sizes.enumerated() { try harness.send(.open(app: name), at: Double(offset)) }
        harness.advance(to: 30)
        return harness.core
    }

    static func killed(_ actions: [LifecycleAction]) -> [String] {
        actions.compactMap { action in
            guard case .kill(let app, .memoryPressure) = action else { return nil }
            return app
        }
    }

    static func decisions(_ actions: [LifecycleAction]) -> [String] {
        actions.compactMap { action in
            guard case .journal(let record) = action, case .decision(let text) = record.kind else { return nil }
            return text
        }
    }

    /// With `victim_exit_wait = "0s"` the killer does not wait: the next critical sample kills
    /// the next app although the first victim's end is not reported.
    @Test func noWaitWhenVictimExitWaitIsZero() throws {
        var memory = MemorySettings()
        memory.victimExitWait = .zero
        var core = try Self.suspendedDevice(memory: memory)
        let total = 1000 * Self.mib
        #expect(
            Self.killed(try core.handle(.memorySample(available: 40 * Self.mib, total: total), at: Harness.seconds(31)))
                == ["a"])
        let next = try core.handle(.memorySample(available: 45 * Self.mib, total: total), at: Harness.seconds(31.1))
        #expect(Self.killed(next) == ["b"])
        #expect(!Lifecycle.waitsForDyingVictim(next))
    }

    /// A victim still dying frees its place in the zram too: the killer waits for it rather
    /// than kill the foreground app. With nothing available and the zram full, `z` (240 MiB in
    /// the zram, 40 MiB of RAM at a ratio of 6) is killed; at the next sample, before its end is
    /// reported, its 40 MiB alone would leave the device critical (`critical_enter` 50 MiB), but
    /// not with the 200 MiB that swapping others' memory into its place frees.
    @Test func theKillerWaitsForTheZramPlaceADyingVictimFrees() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "z"), AppPolicy(name: "fg")]))
        try harness.send(.open(app: "z"), at: 0)
        try harness.send(.open(app: "fg"), at: 1)
        try harness.send(.footprint(app: "z", bytes: 240 * Self.mib), at: 2)
        try harness.send(.footprint(app: "fg", bytes: 10 * Self.mib), at: 2)
        harness.advance(to: 30)
        try harness.send(
            .compressed(app: "z", launch: 1, swappedBytes: 240 * Self.mib, swappedInRAM: 40 * Self.mib), at: 31)
        var core = harness.core
        let total = 1000 * Self.mib
        let full = SwapFigures(free: 0, total: total, swappable: 300 * Self.mib, compressionRatio: 6)
        let first = try core.handle(.memorySample(available: 0, total: total, swap: full), at: Harness.seconds(32))
        #expect(Self.killed(first) == ["z"])
        let waiting = try core.handle(.memorySample(available: 0, total: total, swap: full), at: Harness.seconds(32.1))
        #expect(Self.killed(waiting).isEmpty)
        #expect(
            Self.decisions(waiting) == [
                "Memory is critical, but 40MiB of app \"z\", killed for it, is still on its way back, and 200MiB more once swapped out into the swap freed: no other app is killed unless the device stays critical without it."
            ])
    }

    /// While the victim's end is not reported, a critical sample that its footprint would lift out
    /// of critical kills nobody else, and says so once; its end lets the next sample kill again.
    @Test func aVictimStillDyingSparesTheNextAppWhileItsMemoryIsOnItsWay() throws {
        var core = try Self.suspendedDevice()
        let total = 1000 * Self.mib
        let first = try core.handle(.memorySample(available: 40 * Self.mib, total: total), at: Harness.seconds(31))
        #expect(Self.killed(first) == ["a"])

        let waiting = try core.handle(.memorySample(available: 45 * Self.mib, total: total), at: Harness.seconds(31.1))
        #expect(Self.killed(waiting).isEmpty)
        #expect(Self.decisions(waiting).count == 1)
        #expect(Self.decisions(waiting).first?.contains("\"a\"") == true)
        #expect(Lifecycle.waitsForDyingVictim(waiting) && !Lifecycle.waitsForDyingVictim(first))
        let still = try core.handle(.memorySample(available: 42 * Self.mib, total: total), at: Harness.seconds(31.2))
        #expect(Self.killed(still).isEmpty)
        #expect(Self.decisions(still).isEmpty)

        _ = try core.handle(.processExited(app: "a", launch: 1, end: .exited(code: 137)), at: Harness.seconds(31.3))
        let next = try core.handle(.memorySample(available: 45 * Self.mib, total: total), at: Harness.seconds(31.4))
        #expect(Self.killed(next) == ["b"])
    }

    /// A victim whose end is never reported is counted on for `victim_exit_wait` (1s by
    /// default), no longer; and when even its memory back would leave the device critical, the
    /// next app is killed at once.
    @Test(arguments: [nil, 3.0])
    func theWaitEndsAfterVictimExitWaitAndNeverHoldsWhenStillCritical(seconds: Double?) throws {
        var memory = MemorySettings()
        if let seconds { memory.victimExitWait = .milliseconds(Int64(seconds * 1000)) }
        var core = try Self.suspendedDevice(memory: memory)
        let total = 1000 * Self.mib
        let wait = seconds ?? 1
        #expect(memory.victimExitWait == .milliseconds(Int64(wait * 1000)))
        #expect(
            Self.killed(try core.handle(.memorySample(available: 40 * Self.mib, total: total), at: Harness.seconds(31)))
                == ["a"])
        #expect(
            Self.killed(
                try core.handle(
                    .memorySample(available: 45 * Self.mib, total: total), at: Harness.seconds(31 + wait - 0.01))
            ).isEmpty)
        let late = try core.handle(
            .memorySample(available: 45 * Self.mib, total: total), at: Harness.seconds(31 + wait))
        #expect(Self.killed(late) == ["b"])

        let after = 31 + wait
        _ = try core.handle(
            .processExited(app: "b", launch: 1, end: .exited(code: 137)), at: Harness.seconds(after + 2))
        #expect(
            Self.killed(
                try core.handle(
                    .memorySample(available: 10 * Self.mib, total: total), at: Harness.seconds(after + 3))) == ["c"])
        // 10 MiB free and 1 MiB on its way: still critical, so the next goes at once.
        let deeper = try core.handle(
            .memorySample(available: 10 * Self.mib, total: total), at: Harness.seconds(after + 3.01))
        #expect(Self.killed(deeper) == ["d"])
    }
}
