import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// The memory watch in virtual time, on the fake driver's device: the kernel's signals make it
/// measure, the measured memory alone decides the level and the kills, and an app's own limit
/// or OOM kill is that app's event.
@Suite struct DaemonMemoryWatchTests {
    static let mib: Int64 = 1 << 20

    /// `idle` (200 MiB) suspended and `front` (100 MiB) in the foreground on a 1 GiB device.
    static func device(_ extra: String = "") async throws -> WardenTestBed {
        let policy = try PolicyLoader.parse(
            """
            [apps.idle]
            command = "/bin/idle"
            [apps.idle.background]
            grace = "1s"
            [apps.front]
            command = "/bin/front"
            \(extra)
            """, file: "watch.toml")
        let bed = await WardenTestBed.start(policy: policy)
        bed.driver.setDeviceMemory(1024 * mib)
        bed.driver.setFootprint(200 * mib, of: "idle")
        bed.driver.setFootprint(100 * mib, of: "front")
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        #expect(await bed.control.app(named: "idle")?.state == .suspended)
        return bed
    }

    /// The pressure-level changes journaled under `appwarden`, as `from→to`.
    static func levelChanges(_ bed: WardenTestBed) -> [String] {
        bed.journal.entries(JournalQuery(app: JournalEntry.systemApp, limit: 1000)).compactMap { entry in
            guard entry.name == "pressureChanged" else { return nil }
            return "\(entry.properties["from"] ?? "?")→\(entry.properties["to"] ?? "?")"
        }
    }

    /// A fall of available memory measured by the watch moves the level through warning to
    /// critical, kills the largest suspended app, and the loop stops once critical ends; every
    /// change is journaled in order.
    @Test func measuredMemoryMovesTheLevelAndKillsInOrder() async throws {
        let bed = try await Self.device()
        defer { bed.removeStateDirectory() }
        // 1024 − 300 − 600 = 124 MiB: below warning (15%), above critical (5%).
        bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 600 * Self.mib)
        await bed.settle()
        #expect(Self.levelChanges(bed) == ["normal→warning"])
        #expect(try await bed.daemon.terminationReasons(of: "idle").isEmpty)
        // 24 MiB: critical; idle (200 MiB) goes, leaving 224 MiB, above warning's exit (20%).
        bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 700 * Self.mib)
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "idle") == ["memoryPressure"])
        #expect(await bed.control.app(named: "front")?.state == .active)
        #expect(Self.levelChanges(bed) == ["normal→warning", "warning→critical", "critical→normal"])
        await bed.stop()
    }

    /// A kernel signal with plenty of memory measured changes nothing: the level follows the
    /// measurement, never the signal alone.
    @Test func aSignalWithPlentyOfMemoryChangesNothing() async throws {
        let bed = try await Self.device()
        defer { bed.removeStateDirectory() }
        for _ in 0..<5 { bed.driver.setFootprint(100 * Self.mib, of: "front") }
        await bed.settle()
        #expect(Self.levelChanges(bed).isEmpty)
        #expect(try await bed.daemon.terminationReasons(of: "idle").isEmpty)
        await bed.stop()
    }

    /// An app the kernel kills at its own limit ends with `memoryLimit` and the figures; no
    /// other app is touched and the level does not move.
    @Test func anAppKilledAtItsOwnLimitIsMemoryLimitAndTheOthersLive() async throws {
        let bed = try await Self.device("memory_max = \"96MiB\"")
        defer { bed.removeStateDirectory() }
        #expect(bed.driver.limits(of: "front")?.max == UInt64(96 * Self.mib))
        bed.driver.killByOOM("front", atLimit: true, peak: 96 * Self.mib)
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "front") == ["memoryLimit"])
        #expect(try await bed.daemon.terminationReasons(of: "idle").isEmpty)
        #expect(await bed.control.app(named: "idle")?.state == .suspended)
        #expect(Self.levelChanges(bed).isEmpty)
        let explanation = try await bed.control.explain(app: "front").sentences.joined(separator: "\n")
        #expect(explanation.contains("Killed by the kernel at its memory limit of 96MiB (peak 96MiB)."))
        #expect(!explanation.contains("crashed"))
        await bed.stop()
    }

    /// An OOM kill of one process of an app whose main process lives on (a v1 group) kills the
    /// rest of the app at once.
    @Test func anOOMKillOfOneProcessKillsTheRestOfTheApp() async throws {
        let bed = try await Self.device("memory_max = \"96MiB\"")
        defer { bed.removeStateDirectory() }
        bed.driver.killByOOM("front", atLimit: true, wholeGroup: false)
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "front") == ["memoryLimit"])
        #expect(bed.driver.calls.contains(.kill("front")))
        #expect(bed.driver.pids(of: "front").isEmpty)
        await bed.stop()
    }

    /// A kernel OOM kill that was not at the app's own limit is a kernel kill, never a crash.
    @Test func aKernelKillForTheDeviceIsNamedAsSuch() async throws {
        let bed = try await Self.device()
        defer { bed.removeStateDirectory() }
        bed.driver.killByOOM("front", atLimit: false)
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "front") == ["kernelOOMKill"])
        await bed.stop()
    }

    /// The background limit is written to the group when the app leaves the foreground, and the
    /// foreground limit when it returns.
    @Test func theGroupsLimitFollowsTheAppsState() async throws {
        let bed = try await Self.device(
            """
            [apps.front.memory]
            foreground_limit = "400MiB"
            background_limit = "150MiB"
            """)
        defer { bed.removeStateDirectory() }
        #expect(bed.driver.limits(of: "front")?.max == UInt64(400 * Self.mib))
        _ = try await bed.daemon.perform(.home)
        await bed.settle()
        #expect(bed.driver.limits(of: "front")?.max == UInt64(150 * Self.mib))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.settle()
        #expect(bed.driver.limits(of: "front")?.max == UInt64(400 * Self.mib))
        await bed.stop()
    }

    /// While an app runs, the measurement and the sweep of the running apps share their period
    /// and one wake-up: the measurement is brought forward to the sweep, and from then on the
    /// daemon wakes once a second, not twice.
    @Test func theMeasurementAndTheSweepShareOneWakeUpWhileAnAppRuns() async throws {
        let policy = try PolicyLoader.parse("[apps.front]\ncommand = \"/bin/front\"", file: "watch.toml")
        let bed = await WardenTestBed.start(policy: policy, sampleInterval: .seconds(1))
        defer { bed.removeStateDirectory() }
        // Far from every threshold: the measurements come at their longest spacing, one second.
        bed.driver.setDeviceMemory(64 << 30)
        bed.driver.setFootprint(100 * Self.mib, of: "front")
        // Opened out of step with the sweeps: an opening makes the watch measure at once.
        await bed.advance(to: .milliseconds(2_300))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.settle()
        await bed.advance(by: .seconds(3))
        var wakes: [Duration] = []
        let end = bed.now + .seconds(10)
        while let wake = bed.nextWake, wake <= end {
            wakes.append(wake)
            await bed.advance(to: wake)
        }
        #expect((10...11).contains(wakes.count), "woken at \(wakes)")
        await bed.stop()
    }

    /// A device that is quiet (every app frozen or not running) is measured every 5 s at most;
    /// opening an app ends the quiet spell and the watch measures at once.
    @Test func aQuietDeviceIsMeasuredSlowlyUntilAnAppOpens() async throws {
        let bed = try await Self.device()
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.home)
        await bed.advance(by: .seconds(10))
        // From one measurement of the quiet device to the next.
        await bed.advance(to: try #require(bed.nextWake))
        let start = bed.now
        let wake = try #require(bed.nextWake)
        #expect(wake > start + .seconds(1) && wake <= start + .seconds(5), "woken at \(wake) after \(start)")
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.settle()
        #expect(try #require(bed.nextWake) == bed.now)
        await bed.stop()
    }

    /// On a device with swap a suspended app is compressed once frozen, beside the loop: its
    /// footprint stays what a kill gives back and says how much of it is swapped, and so does
    /// the report of its kill for memory (journal and `explain`); without swap, or with
    /// `compress_suspended = false`, nothing is compressed.
    @Test(arguments: [(true, true), (false, true), (true, false)])
    func aSuspendedAppIsCompressedWhereTheDeviceHasSwap(hasSwap: Bool, compresses: Bool) async throws {
        let policy = try PolicyLoader.parse(
            """
            [memory]
            compress_suspended = \(compresses)
            [apps.idle]
            command = "/bin/idle"
            [apps.idle.background]
            grace = "1s"
            [apps.front]
            command = "/bin/front"
            """, file: "compress.toml")
        let bed = await WardenTestBed.start(policy: policy)
        defer { bed.removeStateDirectory() }
        bed.driver.setDeviceMemory(1024 * Self.mib)
        if hasSwap { bed.driver.setDeviceSwap(512 * Self.mib, zramRatio: 2) }
        bed.driver.setFootprint(200 * Self.mib, of: "idle")
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        let idle = try #require(await bed.control.app(named: "idle"))
        #expect(idle.state == .suspended)
        #expect(idle.footprintBytes == 200 * Self.mib)
        let expected = hasSwap && compresses
        #expect(bed.driver.calls.contains(.compress("idle")) == expected)
        #expect(idle.swappedBytes == (expected ? 200 * Self.mib : 0))
        // A kill gives back its RAM: with all of it in a zram at ratio 2, half its footprint.
        #expect(idle.reclaimableBytes == (expected ? 100 * Self.mib : 200 * Self.mib))
        let explanation = try await bed.control.explain(app: "idle").sentences
        #expect(explanation.contains("Compressed after suspension: 200MiB of its memory in swap.") == expected)
        if expected {
            // The footprint is unchanged; the RAM it held is not: a zram copy is half.
            #expect(bed.driver.deviceMemory()?.available == (1024 - 100) * Self.mib)
        }
        // Under critical_enter (5%) either way (idle holds 100 or 200 MiB of RAM): idle goes.
        bed.driver.setDeviceMemory(1024 * Self.mib, reserved: 900 * Self.mib)
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "idle") == ["memoryPressure"])
        let kill = try #require(
            bed.journal.entries(JournalQuery(app: "idle", limit: 100)).first { $0.name == "memoryKill" })
        #expect(kill.properties["swappedBytes"] == (expected ? String(200 * Self.mib) : nil))
        #expect(kill.properties["reclaimableBytes"] == String((expected ? 100 : 200) * Self.mib))
        let gaveBack =
            "It was in the suspended band and gave back "
            + (expected ? "100MiB at once (a footprint of 200MiB, 200MiB of it in swap);" : "200MiB;")
        #expect(try await bed.control.explain(app: "idle").sentences.contains { $0.hasPrefix(gaveBack) })
        await bed.stop()
    }

    /// The part of an app in swap follows what its group measures: a frozen app the kernel
    /// pushed out further (compression off here) is seen at the next check of the suspended
    /// apps, and a thawed app that brought its pages back at the next sweep, where the figure
    /// stayed what the last compression said before.
    @Test func theSwappedPartFollowsTheGroupBetweenCompressions() async throws {
        let policy = try PolicyLoader.parse(
            """
            [memory]
            compress_suspended = false
            [apps.idle]
            command = "/bin/idle"
            [apps.idle.background]
            grace = "1s"
            [apps.front]
            command = "/bin/front"
            """, file: "swapped.toml")
        let bed = await WardenTestBed.start(policy: policy, sampleInterval: .seconds(1))
        defer { bed.removeStateDirectory() }
        bed.driver.setDeviceMemory(1024 * Self.mib)
        bed.driver.setDeviceSwap(512 * Self.mib, zramRatio: 2)
        bed.driver.setFootprint(200 * Self.mib, of: "idle")
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        #expect(try #require(await bed.control.app(named: "idle")).state == .suspended)
        #expect(try #require(await bed.control.app(named: "idle")).swappedBytes == 0)
        bed.driver.setFootprint(200 * Self.mib, swapped: 150 * Self.mib, of: "idle")
        await bed.advance(by: .seconds(32))  // one check of the suspended apps (every 30 sweeps of 1 s)
        #expect(try #require(await bed.control.app(named: "idle")).swappedBytes == 150 * Self.mib)
        _ = try await bed.daemon.perform(.open(app: "idle"))
        bed.driver.setFootprint(200 * Self.mib, swapped: 0, of: "idle")
        await bed.advance(by: .seconds(2))
        let idle = try #require(await bed.control.app(named: "idle"))
        #expect(idle.state == .active)
        #expect(idle.swappedBytes == 0)
        await bed.stop()
    }
}
