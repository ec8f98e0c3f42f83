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
    /// `available` on a 1000 MiB device (`warning_enter` 15%: 150 MiB), and `swap` where given
    /// (the suspensions came before it, so nothing was compressed then).
    static func device(
        available: Int64, swap: SwapFigures? = nil, memory: MemorySettings = MemorySettings(),
        a: AppPolicy = AppPolicy(name: "a")
    ) throws -> Harness {
        var harness = Harness(
            policy([AppPolicy(name: "maps"), a, AppPolicy(name: "b"), AppPolicy(name: "front")], memory: memory))
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
        try harness.send(.memorySample(available: available, total: total, swap: swap), at: 101)
        return harness
    }

    /// Swap on a drive with `free` bytes left, of which all `swappable` memory in RAM could go.
    static func swap(free: Int64, swappable: Int64 = 300 * mib, zram: Double? = nil) -> SwapFigures {
        SwapFigures(free: free, total: 1000 * mib, swappable: swappable, compressionRatio: zram)
    }

    /// The apps that `actions` ask to compress, in order.
    static func compressions(in actions: [LifecycleAction]) -> [String] {
        actions.compactMap { if case .compress(let app, _) = $0 { app } else { nil } }
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

    /// The usual peak is the median of the finished launches' peaks alone: the launch under way,
    /// however far it grows, does not move it.
    @Test func theUsualPeakLeavesTheLaunchUnderWayOut() {
        var history = LaunchMemoryHistory()
        history.observe(300)
        #expect(history.usualPeak == nil)
        #expect(history.expected == 300)
        history.startLaunch()
        history.observe(900)
        #expect(history.usualPeak == 300)
        #expect(history.expected == 900)
        history.startLaunch()
        history.observe(100)
        // Finished: 300, 900; the upper middle one.
        #expect(history.usualPeak == 900)
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

    /// With 300 MiB available (150 MiB above `warning_enter`), an open of `maps` (300 MiB
    /// expected) kills the largest suspended app, `b` (200 MiB), before `maps` is spawned, and
    /// says so on both; `a`, `front` and `maps` live.
    @Test func aLaunchWithTooLittleRoomKillsTheLargestSuspendedAppFirst() throws {
        var harness = try Self.device(available: 300 * Self.mib)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure"])
        let kill = try #require(
            out.firstIndex {
                if case .journal(let record) = $0, record.app == "b", case .memoryKill = record.kind {
                    true
                } else {
                    false
                }
            })
        let spawn = try #require(Self.spawnIndex("maps", in: out))
        #expect(kill < spawn)
        #expect(harness.state("maps") == .inactive || harness.state("maps") == .active)
        #expect(harness.state("a") == .suspended)
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0.hasPrefix("Made room for maps: 300MiB expected, 150MiB free above warning_enter")
                    && $0.contains("killed \"b\" (200MiB)")
            })
        #expect(Self.decisions("b", in: harness).contains { $0.contains("make room for the launch of \"maps\"") })
    }

    /// With room enough (750 MiB above `warning_enter`), the launch kills nobody.
    @Test func aLaunchWithRoomEnoughKillsNobody() throws {
        var harness = try Self.device(available: 900 * Self.mib)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit"])
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(!Self.decisions("maps", in: harness).contains { $0.hasPrefix("Made room") })
    }

    /// An app never measured has no expected size: it is launched as before, whatever the room.
    @Test func anUnknownAppIsLaunchedAsBefore() throws {
        var harness = try Self.device(available: 160 * Self.mib)
        try harness.send(.open(app: "front"), at: 102)
        try harness.send(.forceQuit(app: "front"), at: 103)
        #expect(harness.core.expectedLaunchSize(of: "front") == nil)
        let out = try harness.send(.open(app: "front"), at: 104)
        #expect(Self.spawnIndex("front", in: out) != nil)
        #expect(harness.terminations == ["maps userForceQuit", "front userForceQuit"])
    }

    /// `[memory] make_room = false` launches the app without making room.
    @Test func makeRoomFalseLaunchesWithoutKilling() throws {
        var memory = MemorySettings()
        memory.makeRoom = false
        var harness = try Self.device(available: 300 * Self.mib, memory: memory)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(harness.terminations == ["maps userForceQuit"])
    }

    /// With too little room for the killable apps, all of them go but never a protected or
    /// foreground one, and the journal says that was all that could be killed.
    @Test func aLaunchNeverKillsProtectedOrForegroundApps() throws {
        var harness = Harness(
            policy(
                [AppPolicy(name: "maps"), AppPolicy(name: "keep", isProtected: true), AppPolicy(name: "front")]))
        try harness.send(.open(app: "maps"), at: 1)
        try harness.send(.footprint(app: "maps", bytes: 600 * Self.mib), at: 2)
        try harness.send(.forceQuit(app: "maps"), at: 3)
        try harness.send(.open(app: "keep"), at: 4)
        try harness.send(.open(app: "front"), at: 5)
        try harness.send(.footprint(app: "keep", bytes: 300 * Self.mib), at: 6)
        try harness.send(.footprint(app: "front", bytes: 300 * Self.mib), at: 6)
        harness.advance(to: 100)
        try harness.send(.memorySample(available: 200 * Self.mib, total: Self.total), at: 101)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit"])
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0.hasPrefix("Made room for maps:") && $0.contains("no app may be killed")
            })
    }

    /// A fetch wake that launches an app passively makes room the same way: news peaked at
    /// 300MiB and ended at 100MiB, so the wake (weighed at 100MiB) is allowed, but its launch
    /// is expected to take 300MiB against 150MiB of room above `warning_enter` and 250MiB above
    /// `critical_enter`: `a` (200MiB, suspended) is killed before news is spawned for the fetch.
    @Test func aFetchWakeThatLaunchesMakesRoomFirst() throws {
        var news = AppPolicy(name: "news", backgroundModes: [.fetch], fetchInterval: .every(.seconds(900)))
        news.settings.fetch.coalesce = .zero
        var harness = Harness(policy([news, AppPolicy(name: "a"), AppPolicy(name: "front")]))
        try harness.send(.open(app: "news"), at: 1)
        try harness.send(.footprint(app: "news", bytes: 300 * Self.mib), at: 2)
        try harness.send(.footprint(app: "news", bytes: 100 * Self.mib), at: 3)
        try harness.send(.processExited(app: "news", launch: 1, end: .exited(code: 0)), at: 4)
        #expect(harness.state("news") == .notRunning)
        try harness.send(.open(app: "a"), at: 5)
        try harness.send(.footprint(app: "a", bytes: 200 * Self.mib), at: 6)
        try harness.send(.open(app: "front"), at: 7)
        harness.advance(to: 100)
        #expect(harness.state("a") == .suspended)
        try harness.send(.memorySample(available: 300 * Self.mib, total: Self.total), at: 101)
        harness.advance(to: 1000)
        // news, never completing its fetch, ends at its window's end.
        #expect(harness.terminations == ["news exited", "a memoryPressure", "news fetchTimeout"])
        let spawn = try #require(
            harness.actions.firstIndex { if case .spawn("news", 2, .fetch, _) = $0 { true } else { false } })
        let kill = try #require(
            harness.actions.firstIndex {
                if case .journal(let record) = $0, record.app == "a", case .memoryKill = record.kind {
                    true
                } else {
                    false
                }
            })
        #expect(kill < spawn)
    }

    /// 400 MiB available and 200 MiB that swap can still take: 250 MiB above `warning_enter` in
    /// RAM, 450 MiB with swap. `maps` (300 MiB expected) fits only with swap: the largest
    /// suspended app, `b` (200 MiB in RAM), is compressed before `maps` is spawned, `a` is not
    /// (`b` covers the 50 MiB RAM lacks), and nobody is killed; the journal says so.
    @Test func aLaunchThatSwapCanHoldCompressesInsteadOfKilling() throws {
        var harness = try Self.device(available: 400 * Self.mib, swap: Self.swap(free: 200 * Self.mib))
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(Self.compressions(in: out) == ["b"])
        let compress = try #require(out.firstIndex { if case .compress("b", _) = $0 { true } else { false } })
        let spawn = try #require(Self.spawnIndex("maps", in: out))
        #expect(compress < spawn)
        #expect(harness.terminations == ["maps userForceQuit"])
        #expect(harness.state("a") == .suspended && harness.state("b") == .suspended)
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0
                    == "Made room for maps: 300MiB expected, 450MiB free above warning_enter (150MiB), 200MiB of it only once swapped out; compressed \"b\" (200MiB in RAM), freeing 200MiB."
            })
        #expect(
            Self.decisions("b", in: harness).contains {
                $0.hasPrefix("Compressed to make room for the launch of \"maps\"")
            })
        #expect(Self.decisions("a", in: harness).allSatisfy { !$0.contains("make room") })
    }

    /// 200 MiB available and 100 MiB that swap can still take: 150 MiB above `warning_enter`
    /// with swap, so `maps` (300 MiB) is 150 MiB short even with swap: `b` (200 MiB) is killed
    /// for that, as without swap. RAM alone (50 MiB above) still lacks 50 MiB beside the kill:
    /// `a` is compressed for it. `b`, killed, is not compressed; the line says both.
    @Test func whatSwapCannotTakeIsLeftToKills() throws {
        var harness = try Self.device(
            available: 200 * Self.mib, swap: Self.swap(free: 100 * Self.mib))
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure"])
        #expect(Self.compressions(in: out) == ["a"])
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0
                    == "Made room for maps: 300MiB expected, 150MiB free above warning_enter (150MiB), 100MiB of it only once swapped out; compressed \"a\" (100MiB in RAM), freeing 100MiB; killed \"b\" (200MiB), giving back 200MiB."
            })
    }

    /// When the kills for what swap cannot take give back all that RAM lacks too (100 MiB
    /// available, 20 MiB of swap left: 230 MiB short of what would keep the device above
    /// `critical_enter`; `b` and `a` killed for 300 MiB), nothing is compressed and the line
    /// names no compression. With `a` and `b` gone, no memory is left in RAM for the 20 MiB of
    /// swap to take: the launch leaves the device 50 MiB above `critical_enter`, at warning.
    @Test func killsThatCoverWhatRAMLacksCompressNothing() throws {
        var harness = try Self.device(available: 100 * Self.mib, swap: Self.swap(free: 20 * Self.mib))
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure", "a memoryPressure"])
        #expect(Self.compressions(in: out) == [])
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0
                    == "Made room for maps: 300MiB expected, 30MiB short of warning_enter (150MiB) even with what swap can take; killed \"b\" (200MiB), \"a\" (100MiB), giving back 300MiB; the launch leaves the device above critical_enter (50MiB)."
            })
    }

    /// Kills are made only for what would leave the device under `critical_enter` (5%: 50 MiB):
    /// with 200 MiB available and no swap, `maps` (300 MiB) would leave 100 MiB short of that,
    /// and `b` (200 MiB) covers it. Without `a` the launch lacks 50 MiB above `warning_enter`,
    /// so it leaves the device at warning, where rule 9 kills nobody: `a` lives, and the line
    /// says why the kills stopped.
    @Test func killsStopOnceTheLaunchLeavesTheDeviceAboveCriticalEnter() throws {
        var harness = try Self.device(available: 200 * Self.mib)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure"])
        #expect(harness.state("a") == .suspended)
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0
                    == "Made room for maps: 300MiB expected, 50MiB free above warning_enter (150MiB); killed \"b\" (200MiB), giving back 200MiB; the launch leaves the device above critical_enter (50MiB)."
            })
    }

    /// A launch that fits above `critical_enter` but not above `warning_enter`, with nothing to
    /// compress (no swap), kills nobody: 400 MiB available leaves `maps` (300 MiB) 50 MiB
    /// short of `warning_enter`, 50 MiB above `critical_enter`. The line says so.
    @Test func aLaunchThatLeavesTheDeviceAtWarningKillsNobody() throws {
        var harness = try Self.device(available: 400 * Self.mib)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit"])
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0
                    == "Made room for maps: 300MiB expected, 250MiB free above warning_enter (150MiB); no app killed: the launch leaves the device above critical_enter (50MiB)."
            })
        // Should the launch then leave the device critical, the killer acts as ever.
        try harness.send(.memorySample(available: 20 * Self.mib, total: Self.total), at: 103)
        #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure"])
    }

    /// In a zram a compressed copy keeps 1/ratio of the memory in RAM: at a ratio of 2, `b`'s
    /// 200 MiB free 100 MiB, short of the 150 MiB RAM lacks, so `a` (100 MiB, freeing 50 MiB)
    /// is compressed too.
    @Test func compressionIntoZramCountsWhatTheCompressedCopyKeeps() throws {
        // 300 MiB of memory in RAM could go to swap, freeing 150 MiB at a ratio of 2.
        var harness = try Self.device(
            available: 300 * Self.mib, swap: Self.swap(free: 400 * Self.mib, zram: 2))
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(Self.compressions(in: out) == ["b", "a"])
        #expect(harness.terminations == ["maps userForceQuit"])
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0.hasSuffix(
                    "compressed \"b\" (200MiB in RAM), \"a\" (100MiB in RAM), freeing 150MiB.")
            })
    }

    /// `b` at 240 MiB, all of it in a zram at a ratio of 2 (120 MiB of RAM).
    static func bInTheZram(_ harness: inout Harness) throws {
        try harness.send(.footprint(app: "b", bytes: 240 * mib), at: 101)
        try harness.send(
            .compressed(app: "b", launch: harness.launches["b"] ?? 0, swappedBytes: 240 * mib, swappedInRAM: 120 * mib),
            at: 101)
    }

    /// A kill of an app in a zram gives back its compressed size at once, and frees its place in
    /// the zram, which swapping out others' memory then takes. With the zram full, 200 MiB
    /// available and `maps` (300 MiB) expected, the launch is 150 MiB short of `critical_enter`.
    /// `b` (240 MiB all in the zram at a ratio of 2) gives back 120 MiB at once and 120 MiB more
    /// once 240 MiB of others' memory is swapped into its place: that covers it, so `a` is
    /// compressed into that place rather than killed. Counting `b`'s 120 MiB alone would kill
    /// `a` too.
    @Test func aKillOfAnAppInTheZramCountsThePlaceItFreesThere() throws {
        var harness = try Self.device(
            available: 200 * Self.mib, swap: Self.swap(free: 0, swappable: 300 * Self.mib, zram: 2))
        try Self.bInTheZram(&harness)
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure"])
        #expect(harness.state("a") == .suspended)
        #expect(Self.compressions(in: out) == ["a"])
        #expect(
            Self.decisions("maps", in: harness).contains {
                $0
                    == "Made room for maps: 300MiB expected, 50MiB free above warning_enter (150MiB); compressed \"a\" (100MiB in RAM), freeing 50MiB, all that could be compressed; killed \"b\" (120MiB, and 240MiB of swap), giving back 120MiB, and 120MiB more once swapped out into the swap freed; the launch leaves the device above critical_enter (50MiB)."
            })
    }

    /// One kill rather than two: `a` (130 MiB, all in RAM) comes first in the order, but its
    /// kill alone gives back 130 MiB of the 150 MiB the launch lacks, where `b`'s (240 MiB all
    /// in the zram) gives back 120 MiB at once and 120 MiB more once swapped out into its place.
    /// Under `largest` `b` goes alone and `a` is compressed; under `least_missed` the order is
    /// the policy's own, and both go.
    @Test(arguments: [KillOrder.largest, .leastMissed])
    func anAppWhoseKillAloneCoversGoesBeforeTwoKills(order: KillOrder) throws {
        var memory = MemorySettings()
        memory.killOrder = order
        var harness = try Self.device(
            available: 200 * Self.mib, swap: Self.swap(free: 0, swappable: 300 * Self.mib, zram: 2), memory: memory)
        try harness.send(.footprint(app: "a", bytes: 130 * Self.mib), at: 101)
        try Self.bInTheZram(&harness)
        #expect(harness.core.killCandidates().sorted { VictimRanking.precedes($0, $1) }.first?.app == "a")
        let out = try harness.send(.open(app: "maps"), at: 102)
        if order == .largest {
            #expect(harness.terminations == ["maps userForceQuit", "b memoryPressure"])
            #expect(harness.state("a") == .suspended)
            #expect(Self.compressions(in: out) == ["a"])
            #expect(
                Self.decisions("b", in: harness).contains {
                    $0
                        == "Chosen to make room for the launch of \"maps\" (300MiB expected): the first in the memory killer's order whose kill alone covers the 150MiB the launch still lacks, where \"a\"'s kill (130MiB) would need another kill beside it."
                })
            // The kill's report gives `a`'s true reason, not the order's "gives back less".
            let passed = try #require(Self.killReports(in: harness).first?.others.first { $0.app == "a" })
            #expect(
                passed.reason
                    == "its kill alone (130MiB) would not cover the 150MiB the launch of \"maps\" still lacks, where that of \"b\" does: one kill rather than two"
            )
        } else {
            #expect(Set(harness.terminations) == ["maps userForceQuit", "a memoryPressure", "b memoryPressure"])
            #expect(
                Self.decisions("b", in: harness).contains {
                    $0.hasSuffix("(300MiB expected): the first in the memory killer's order.")
                })
        }
    }

    /// Where no app's kill alone covers what the launch lacks, the order stands: with 100 MiB
    /// available the launch is 250 MiB short of `critical_enter`; `a`'s kill gives 130 MiB and
    /// `b`'s 240 MiB, so `a` goes first, then `b`.
    @Test func theOrderStandsWhereNoKillAloneCovers() throws {
        var harness = try Self.device(
            available: 100 * Self.mib, swap: Self.swap(free: 0, swappable: 300 * Self.mib, zram: 2))
        try harness.send(.footprint(app: "a", bytes: 130 * Self.mib), at: 101)
        try Self.bInTheZram(&harness)
        try harness.send(.open(app: "maps"), at: 102)
        #expect(harness.terminations == ["maps userForceQuit", "a memoryPressure", "b memoryPressure"])
        #expect(
            Self.decisions("a", in: harness).contains {
                $0
                    == "Chosen to make room for the launch of \"maps\" (300MiB expected): the first in the memory killer's order."
            })
    }

    /// The memory kills journaled, in order.
    static func killReports(in harness: Harness) -> [MemoryKillReport] {
        harness.journal.compactMap { record in
            if case .memoryKill(let report) = record.kind { report } else { nil }
        }
    }

    /// An app whose memory is all in swap already, or whose `compress_suspended = false` keeps
    /// it from suspension's compression, is not compressed for a launch either: with nothing
    /// else to compress, the launch (which fits with swap) is spawned as without the rule.
    @Test(arguments: [false, true])
    func aLaunchCompressesNoAppThatSuspensionWouldNot(allInSwap: Bool) throws {
        var a = AppPolicy(name: "a")
        if !allInSwap { a.memory.compressSuspended = false }
        var harness = try Self.device(available: 400 * Self.mib, swap: Self.swap(free: 200 * Self.mib), a: a)
        // b compressed whole (on a drive: nothing of it left in RAM).
        try harness.send(
            .compressed(app: "b", launch: harness.launches["b"] ?? 0, swappedBytes: 200 * Self.mib, swappedInRAM: 0),
            at: 101)
        if allInSwap {
            try harness.send(
                .compressed(
                    app: "a", launch: harness.launches["a"] ?? 0, swappedBytes: 100 * Self.mib, swappedInRAM: 0),
                at: 101)
        }
        let out = try harness.send(.open(app: "maps"), at: 102)
        #expect(Self.compressions(in: out) == [])
        #expect(Self.spawnIndex("maps", in: out) != nil)
        #expect(harness.terminations == ["maps userForceQuit"])
        #expect(!Self.decisions("maps", in: harness).contains { $0.hasPrefix("Made room") })
    }

    /// Two launches before the next sample: the second does not count again the app the first
    /// had compressed, and counts the room the first took.
    @Test func aSecondLaunchDoesNotCountTheSameCompressionAgain() throws {
        var harness = Harness(
            policy([
                AppPolicy(name: "maps"), AppPolicy(name: "news"), AppPolicy(name: "a"), AppPolicy(name: "b"),
                AppPolicy(name: "front"),
            ]))
        for (offset, app, bytes) in [(0.0, "maps", 100 * Self.mib), (3.0, "news", 200 * Self.mib)] {
            try harness.send(.open(app: app), at: 1 + offset)
            try harness.send(.footprint(app: app, bytes: bytes), at: 2 + offset)
            try harness.send(.forceQuit(app: app), at: 3 + offset)
        }
        try harness.send(.open(app: "a"), at: 7)
        try harness.send(.open(app: "b"), at: 8)
        try harness.send(.open(app: "front"), at: 9)
        try harness.send(.footprint(app: "a", bytes: 100 * Self.mib), at: 10)
        try harness.send(.footprint(app: "b", bytes: 200 * Self.mib), at: 10)
        harness.advance(to: 100)
        // 50 MiB above warning_enter in RAM, 350 MiB with swap.
        try harness.send(
            .memorySample(available: 200 * Self.mib, total: Self.total, swap: Self.swap(free: 300 * Self.mib)),
            at: 101)
        let first = try harness.send(.open(app: "maps"), at: 102)
        #expect(Self.compressions(in: first) == ["b"])
        // b frees 200 MiB: RAM then has 250 MiB above warning_enter, less the 100 MiB maps takes.
        // news (200 MiB) lacks 50 MiB: a is compressed for it, not b again, whose compression
        // has not come back.
        let second = try harness.send(.open(app: "news"), at: 103)
        #expect(Self.compressions(in: second) == ["a"])
        #expect(harness.terminations == ["maps userForceQuit", "news userForceQuit"])
    }

    /// A launch killed for its own growth teaches nothing: `runaway` took 100 MiB in a launch
    /// that ended well, then grew to 500 MiB and was killed over its fair share (40%: 400 MiB)
    /// at a critical sample, or over its foreground limit (300 MiB). Its expected size stays
    /// 100 MiB, where learning the kill point (the median of 100 and 500 MiB is the upper, 500)
    /// would make each later launch kill for 500 MiB. A suspended app killed for the device
    /// keeps what its launch took.
    @Test(arguments: [false, true])
    func aLaunchKilledForItsOwnGrowthTeachesNothing(atItsLimit: Bool) throws {
        var runaway = AppPolicy(name: "runaway")
        if atItsLimit { runaway.memory = AppMemoryOverrides(foregroundLimit: .bytes(300 * Self.mib)) }
        var harness = Harness(policy([runaway, AppPolicy(name: "a")]))
        try harness.send(.memorySample(available: 900 * Self.mib, total: Self.total), at: 1)
        try harness.send(.open(app: "runaway"), at: 2)
        try harness.send(.footprint(app: "runaway", bytes: 100 * Self.mib), at: 3)
        try harness.send(.forceQuit(app: "runaway"), at: 4)
        try harness.send(.open(app: "a"), at: 5)
        try harness.send(.footprint(app: "a", bytes: 200 * Self.mib), at: 6)
        try harness.send(.open(app: "runaway"), at: 7)
        try harness.send(.footprint(app: "runaway", bytes: 500 * Self.mib), at: 8)
        if !atItsLimit {
            harness.advance(to: 100)
            try harness.send(.memorySample(available: 20 * Self.mib, total: Self.total), at: 101)
        }
        #expect(
            harness.terminations == [
                "runaway userForceQuit", atItsLimit ? "runaway memoryLimit" : "runaway memoryPressure",
            ])
        #expect(harness.core.expectedLaunchSize(of: "runaway") == 100 * Self.mib)
        if !atItsLimit {
            // a, suspended, is the next victim: what its launch took is kept.
            try harness.send(.memorySample(available: 20 * Self.mib, total: Self.total), at: 102)
            #expect(harness.terminations.last == "a memoryPressure")
            #expect(harness.core.expectedLaunchSize(of: "a") == 200 * Self.mib)
        }
    }
}
