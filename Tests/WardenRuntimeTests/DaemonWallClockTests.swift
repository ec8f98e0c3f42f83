import Foundation
import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

/// A device without a real-time clock is set by NTP after boot: its wall clock steps while the
/// daemon runs, and between a daemon's stop and the next start.
@Suite struct DaemonWallClockTests {
    /// The steps of the device's wall clock so far, in milliseconds.
    final class WallSteps: Sendable {
        private let total = Mutex<Int64>(0)
        var millis: Int64 { total.withLock { $0 } }
        func step(by duration: Duration) { total.withLock { $0 += duration.milliseconds } }
    }

    static let policy = """
        [apps.mail]
        command = "/bin/mail"
        background_modes = ["fetch"]
        fetch_interval = "minimum"
        [apps.mail.fetch]
        minimum_interval = "1h"
        [apps.notes]
        command = "/bin/notes"
        """

    static let wallAtStart: Int64 = 1_800_000_000_000

    /// A step of a day while the daemon runs moves the journal's times and the wall time of the
    /// next wake by a day, and no deadline; a step of ten years while no daemon runs (NTP after
    /// boot) moves no deadline either: the restarted daemon measures the time it was away (20 s)
    /// by the boot clock, and journals at the new wall time.
    @Test func deadlinesKeepTheirTimeAndTheJournalFollowsTheWallClockThroughSteps() async throws {
        let policy = try PolicyLoader.parse(Self.policy, file: "policy.toml")
        let steps = WallSteps()
        let first = ManualClock()
        let bed = await WardenTestBed.start(
            policy: policy,
            clock: (
                first, { Self.wallAtStart + first.now.offset.milliseconds + steps.millis },
                { WardenClock.BootTime(bootID: "boot", millis: 7_000 + first.now.offset.milliseconds) }
            ))
        defer { bed.removeStateDirectory() }
        let plannedWake = try #require(await bed.control.app(named: "mail")?.nextWakeMillis)
        let untilWake = Duration.milliseconds(plannedWake - Self.wallAtStart)
        #expect(untilWake > .seconds(60))

        await bed.advance(to: .seconds(10))
        steps.step(by: .seconds(86_400))
        _ = try await bed.daemon.perform(.open(app: "notes"))
        let opened = try #require(bed.journal.entries(JournalQuery(app: "notes")).last)
        #expect(opened.wallTimeMillis == Self.wallAtStart + 10_000 + 86_400_000)
        #expect(await bed.control.app(named: "mail")?.nextWakeMillis == plannedWake + 86_400_000)
        await bed.daemon.stop()

        // 20 s without a daemon, and the wall clock set ten years on meanwhile.
        let decade: Int64 = 3_650 * 86_400_000
        steps.step(by: .milliseconds(decade))
        let second = ManualClock()
        let stoppedAt: Int64 = 10_000
        let restarted = await WardenTestBed.start(
            policy: policy, restarting: (bed.journal, bed.stateDirectory),
            clock: (
                second, { Self.wallAtStart + stoppedAt + 20_000 + second.now.offset.milliseconds + steps.millis },
                {
                    WardenClock.BootTime(
                        bootID: "boot", millis: 7_000 + stoppedAt + 20_000 + second.now.offset.milliseconds)
                }
            ))
        let started = try #require(
            restarted.journal.entries(JournalQuery()).last { $0.name == "daemonStarted" })
        #expect(started.wallTimeMillis == Self.wallAtStart + stoppedAt + 20_000 + 86_400_000 + decade)
        let left = untilWake - .milliseconds(stoppedAt + 20_000)
        await restarted.advance(to: left - .seconds(1))
        #expect(!restarted.launcher.isRunning("mail"))
        await restarted.advance(to: left)
        #expect(restarted.launcher.isRunning("mail"))
        await restarted.stop()
    }

    /// A step back of the wall clock holds the journal's times at the last one written until the
    /// wall clock passes it: times never go back, so that ids and times keep one order (what
    /// `events --since` and `export` rely on).
    @Test func aStepBackHoldsTheJournalsTimesUntilTheWallClockPassesThem() async throws {
        let policy = try PolicyLoader.parse(Self.policy, file: "policy.toml")
        let steps = WallSteps()
        let manual = ManualClock()
        let bed = await WardenTestBed.start(
            policy: policy,
            clock: (manual, { Self.wallAtStart + manual.now.offset.milliseconds + steps.millis }, { nil }))
        defer { bed.removeStateDirectory() }
        await bed.advance(to: .seconds(10))
        steps.step(by: .seconds(-60))
        _ = try await bed.daemon.perform(.open(app: "notes"))
        #expect(bed.journal.entries(JournalQuery(app: "notes")).first?.wallTimeMillis == Self.wallAtStart)
        await bed.advance(to: .seconds(100))
        _ = try await bed.daemon.perform(.home)
        #expect(bed.journal.entries(JournalQuery(app: "notes")).last?.wallTimeMillis == Self.wallAtStart + 40_000)
        await bed.stop()
    }
}
