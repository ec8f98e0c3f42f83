import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenScenario
import WardenTesting

@testable import WardenRuntime

/// The daemon's timers, windows and sweeps on the manual clock, with the fake driver and the
/// fake launcher: no root, no cgroups, no waiting in real time.
@Suite struct DaemonVirtualTimeTests {
    static func bed(
        _ policy: String, configure: (inout WardenDaemonOptions) -> Void = { _ in },
        sampleInterval: Duration = .seconds(1_000_000_000)
    ) async throws -> WardenTestBed {
        let parsed = try PolicyLoader.parse(policy, file: "policy.toml")
        return await WardenTestBed.start(policy: parsed, sampleInterval: sampleInterval, configure: configure)
    }

    /// A fetch that never completes ends in fetchTimeout at the end of its window; one that
    /// completes is frozen after it.
    @Test func aFetchThatNeverCompletesTimesOutAndOneThatCompletesIsFrozen() async throws {
        let bed = try await Self.bed(
            """
            [apps.silent]
            command = "/bin/silent"
            background_modes = ["fetch"]
            fetch_interval = "minimum"
            [apps.silent.fetch]
            window = "2s"
            minimum_interval = "1s"
            [apps.diligent]
            command = "/bin/diligent"
            background_modes = ["fetch"]
            fetch_interval = "minimum"
            [apps.diligent.fetch]
            window = "2s"
            minimum_interval = "1s"
            """)
        defer { bed.removeStateDirectory() }
        await bed.advance(to: .seconds(1))
        #expect(bed.journal.entries(JournalQuery(app: "diligent")).contains { $0.name == "fetchStart" })
        #expect(bed.launcher.isRunning("silent") && bed.launcher.isRunning("diligent"))
        _ = try await bed.daemon.perform(.completeFetch(app: "diligent", result: .newData))
        await bed.settle()
        #expect(await bed.control.app(named: "diligent")?.state == .suspended)
        #expect(bed.driver.isFrozen("diligent"))
        await bed.advance(to: .milliseconds(2999))
        #expect(try await bed.daemon.terminationReasons(of: "silent").isEmpty)
        await bed.advance(to: .seconds(3))
        #expect(try await bed.daemon.terminationReasons(of: "silent") == ["fetchTimeout"])
        #expect(bed.driver.calls.contains(.kill("silent")))
        #expect(try await bed.daemon.terminationReasons(of: "diligent").isEmpty)
        await bed.stop()
    }

    /// With a 3 s task budget, an unended task ends in backgroundTaskExpired exactly when the
    /// budget runs out, and an ended one lets the app be frozen.
    @Test func anUnendedTaskExpiresTheBudgetAndAnEndedOneLetsTheAppFreeze() async throws {
        let bed = try await Self.bed(
            """
            foreground_slots = 2
            [apps.forgetful]
            command = "/bin/forgetful"
            [apps.forgetful.background]
            grace = "1s"
            task_budget = "3s"
            expiration_warning = "1s"
            [apps.tidy]
            command = "/bin/tidy"
            [apps.tidy.background]
            grace = "1s"
            task_budget = "3s"
            expiration_warning = "1s"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "forgetful"))
        _ = try await bed.daemon.perform(.open(app: "tidy"))
        await bed.settle()
        #expect(await bed.control.app(named: "tidy")?.state == .active)
        _ = try await bed.daemon.perform(.beginTask(app: "forgetful", name: "upload"))
        let reply = try await bed.daemon.perform(.beginTask(app: "tidy", name: "upload"))
        guard case .taskBegun(let tidyTask, _)? = reply else {
            Issue.record("begin-task answered \(String(describing: reply))")
            await bed.stop()
            return
        }
        _ = try await bed.daemon.perform(.home)
        await bed.advance(to: .milliseconds(500))
        #expect(await bed.control.app(named: "tidy")?.state == .background)
        _ = try await bed.daemon.perform(.endTask(app: "tidy", taskID: tidyTask))
        await bed.settle()
        #expect(await bed.control.app(named: "tidy")?.state == .suspended)
        #expect(bed.driver.isFrozen("tidy"))
        await bed.advance(to: .seconds(2))
        #expect(bed.journal.entries(JournalQuery(app: "forgetful")).contains { $0.name == "expirationWarning" })
        #expect(try await bed.daemon.terminationReasons(of: "forgetful").isEmpty)
        await bed.advance(to: .seconds(3))
        #expect(try await bed.daemon.terminationReasons(of: "forgetful") == ["backgroundTaskExpired"])
        #expect(try await bed.daemon.terminationReasons(of: "tidy").isEmpty)
        await bed.stop()
    }

    /// A notify app that never calls ready ends in launchTimeout when the launch timeout runs
    /// out; one that calls it becomes active.
    @Test func aNotifyAppThatNeverCallsReadyTimesOutAndOneThatCallsItBecomesActive() async throws {
        let bed = try await Self.bed(
            """
            foreground_slots = 2
            [apps.mute]
            command = "/bin/mute"
            readiness = "notify"
            [apps.mute.launch]
            timeout = "1s"
            [apps.chatty]
            command = "/bin/chatty"
            readiness = "notify"
            [apps.chatty.launch]
            timeout = "1s"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mute"))
        _ = try await bed.daemon.perform(.open(app: "chatty"))
        #expect(await bed.control.app(named: "chatty")?.state == .inactive)
        _ = try await bed.daemon.perform(.ready(app: "chatty"))
        #expect(await bed.control.app(named: "chatty")?.state == .active)
        await bed.advance(to: .milliseconds(999))
        #expect(await bed.control.app(named: "mute")?.state == .inactive)
        await bed.advance(to: .seconds(1))
        #expect(await bed.control.app(named: "mute")?.state == .notRunning)
        #expect(try await bed.daemon.terminationReasons(of: "mute") == ["launchTimeout"])
        #expect(bed.driver.calls.contains(.kill("mute")))
        #expect(await bed.control.app(named: "chatty")?.state == .active)
        await bed.stop()
    }

    /// A test bed with `names` suspended (1 s grace) beside the running app `awake`, at 2 s: the
    /// sweeps come every 10 s while `awake` runs, every third looks at suspended apps, two of
    /// them per check.
    static func suspendedInTurns(_ names: [String]) async throws -> WardenTestBed {
        let bed = try await Self.bed(
            names.map { "[apps.\($0)]\ncommand = \"/bin/\($0)\"\n[apps.\($0).background]\ngrace = \"1s\"\n" }
                .joined() + "[apps.awake]\ncommand = \"/bin/awake\"\n",
            configure: {
                $0.freezerCheckSweeps = 3
                $0.suspendedSampleSweeps = 3
                $0.suspendedChecksPerRound = 2
            }, sampleInterval: .seconds(10))
        do {
            for name in names + ["awake"] { _ = try await bed.daemon.perform(.open(app: name)) }
        } catch {
            bed.removeStateDirectory()
            throw error
        }
        await bed.advance(to: .seconds(2))
        return bed
    }

    /// Where more apps are suspended than one check looks at, each check looks at the next ones
    /// in turn: three suspended apps thawed behind the daemon's back, two per check, are frozen
    /// again two at the first check and the third at the next.
    @Test func suspendedGroupsAreCheckedInTurnWhenThereAreMany() async throws {
        let names = ["one", "three", "two"]
        let bed = try await Self.suspendedInTurns(names)
        defer { bed.removeStateDirectory() }
        for name in names {
            #expect(await bed.control.app(named: name)?.state == .suspended)
            bed.driver.setFrozenBehindTheDaemon(false, name: name)
        }
        await bed.advance(to: .seconds(30))
        #expect(names.map { bed.driver.isFrozen($0) } == [true, true, false])
        await bed.advance(to: .seconds(60))
        #expect(names.allSatisfy { bed.driver.isFrozen($0) })
        await bed.stop()
    }

    /// An app woken between two checks moves no other app's turn: with four suspended apps, two
    /// per check, the first check looks at the first two and the next at the two after them,
    /// though the first app was opened in between (a turn kept as a position in the list of
    /// suspended apps would then pass over the third).
    @Test func anAppWokenBetweenChecksMovesNoOtherAppsTurn() async throws {
        let names = ["a", "b", "c", "d"]
        let bed = try await Self.suspendedInTurns(names)
        defer { bed.removeStateDirectory() }
        #expect(await bed.control.app(named: "c")?.state == .suspended)
        bed.driver.setFrozenBehindTheDaemon(false, name: "c")
        await bed.advance(to: .seconds(30))
        #expect(!bed.driver.isFrozen("c"))
        _ = try await bed.daemon.perform(.open(app: "a"))
        await bed.advance(to: .seconds(60))
        #expect(bed.driver.isFrozen("c"))
        await bed.stop()
    }

    /// A running app frozen behind the daemon's back is thawed on the sweep that checks the
    /// freezer, and a suspended app thawed behind its back is frozen again on the sweep that
    /// also looks at suspended apps.
    @Test func aGroupFrozenOrThawedBehindTheDaemonsBackIsPutRightOnTheCheckingSweep() async throws {
        let bed = try await Self.bed(
            """
            [apps.awake]
            command = "/bin/awake"
            [apps.asleep]
            command = "/bin/asleep"
            [apps.asleep.background]
            grace = "1s"
            """,
            configure: {
                $0.freezerCheckSweeps = 3
                $0.suspendedSampleSweeps = 6
            }, sampleInterval: .seconds(10))
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "asleep"))
        _ = try await bed.daemon.perform(.open(app: "awake"))
        await bed.advance(to: .seconds(1))
        #expect(await bed.control.app(named: "asleep")?.state == .suspended)
        bed.driver.setFrozenBehindTheDaemon(true, name: "awake")
        bed.driver.setFrozenBehindTheDaemon(false, name: "asleep")
        // Sweeps at 10 s and 20 s do not check the freezer; the one at 30 s checks the running
        // app, the one at 60 s the suspended app too.
        await bed.advance(to: .seconds(20))
        #expect(bed.driver.isFrozen("awake"))
        #expect(!bed.driver.isFrozen("asleep"))
        await bed.advance(to: .seconds(30))
        #expect(!bed.driver.isFrozen("awake"))
        #expect(!bed.driver.isFrozen("asleep"))
        await bed.advance(to: .seconds(60))
        #expect(bed.driver.isFrozen("asleep"))
        #expect(await bed.control.app(named: "awake")?.state == .active)
        #expect(await bed.control.app(named: "asleep")?.state == .suspended)
        await bed.stop()
    }

    /// The sweeps measure the running apps on every sweep and never a suspended app: a frozen
    /// app cannot grow (it is measured when frozen, and before a kill).
    @Test func theSweepsMeasureRunningAppsButNotSuspendedOnes() async throws {
        let bed = try await Self.bed(
            """
            [apps.front]
            command = "/bin/front"
            [apps.idle]
            command = "/bin/idle"
            [apps.idle.background]
            grace = "1s"
            """, configure: { $0.suspendedSampleSweeps = 4 }, sampleInterval: .seconds(10))
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        #expect(await bed.control.app(named: "idle")?.state == .suspended)
        bed.driver.setFootprint(5_000_000, of: "idle")
        bed.driver.setFootprint(7_000_000, of: "front")
        await bed.advance(to: .seconds(10))
        #expect(await bed.control.app(named: "front")?.footprintBytes == 7_000_000)
        #expect(await bed.control.app(named: "idle")?.footprintBytes != 5_000_000)
        await bed.advance(to: .seconds(40))
        #expect(await bed.control.app(named: "idle")?.footprintBytes != 5_000_000)
        #expect(bed.driver.calls.filter { $0 == .freeze("idle") }.count == 1)
        await bed.stop()
    }

    /// Before a pressure event that decides something, the footprints the killer ranks are
    /// journaled for `export` only when they changed since they were last journaled; a policy
    /// coming into force journals them afresh. Such a measurement does not save the checkpoint.
    @Test func onlyChangedFootprintsAreJournaledBeforeADecidingPressureEvent() async throws {
        let bed = try await Self.bed(
            """
            [apps.front]
            command = "/bin/front"
            [apps.idle]
            command = "/bin/idle"
            [apps.idle.background]
            grace = "1s"
            """, sampleInterval: .seconds(10))
        defer { bed.removeStateDirectory() }
        bed.driver.setFootprint(3_000_000, of: "idle")
        _ = try await bed.daemon.perform(.open(app: "idle"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        #expect(await bed.control.app(named: "idle")?.state == .suspended)
        func footprintSteps() -> [String] {
            bed.journal.entries(JournalQuery()).compactMap { entry in
                guard case .input(.step(let text)) = entry.event, text.hasPrefix("footprint ") else { return nil }
                return text
            }
        }
        _ = try await bed.daemon.perform(.footprint(app: "front", bytes: 7_000_000))
        _ = try await bed.daemon.perform(.pressure(.warning))
        #expect(footprintSteps().sorted() == ["footprint front 7000000B", "footprint idle 3000000B"])
        _ = try await bed.daemon.perform(.pressure(.normal))
        let saved = try #require(bed.journal.checkpoint()?.json)
        _ = try await bed.daemon.perform(.footprint(app: "front", bytes: 8_000_000))
        #expect(bed.journal.checkpoint()?.json == saved)
        _ = try await bed.daemon.perform(.pressure(.warning))
        #expect(footprintSteps().count == 3)
        #expect(footprintSteps().last == "footprint front 8000000B")
        #expect(bed.journal.checkpoint()?.json.contains("8000000") == true)
        _ = await bed.daemon.onLoop { daemon in daemon.recordPolicyInForce() }
        _ = try await bed.daemon.perform(.pressure(.normal))
        #expect(footprintSteps().count == 5)
        await bed.stop()
    }

    /// An app asking for its remaining background time changes nothing, so the checkpoint is not
    /// saved again for it; a task begun right after is saved before its answer.
    @Test func askingForTheTimeRemainingDoesNotSaveTheCheckpoint() async throws {
        let bed = try await Self.bed(
            """
            [apps.mail]
            command = "/bin/mail"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        await bed.advance(by: .seconds(5))
        let saved = try #require(bed.journal.checkpoint())
        await bed.advance(by: .seconds(1))
        let answer = try await bed.daemon.perform(.timeRemaining(app: "mail"))
        #expect(answer == .timeRemaining(nil))
        #expect(bed.journal.checkpoint()?.wallTimeMillis == saved.wallTimeMillis)
        _ = try await bed.daemon.perform(.beginTask(app: "mail", name: "sync"))
        #expect((bed.journal.checkpoint()?.wallTimeMillis ?? 0) > saved.wallTimeMillis)
        #expect(bed.journal.checkpoint()?.json.contains("sync") == true)
        await bed.stop()
    }

    /// Under memory pressure a job no caller waits for (a process's end) saves the checkpoint at
    /// most every 250 ms, so that a save does not stand before the next kill; a caller's event
    /// still saves it before the answer.
    @Test func underPressureTheCheckpointKeepsItsSpacingUnlessACallerWaits() async throws {
        let bed = try await Self.bed(
            """
            foreground_slots = 2
            [apps.mail]
            command = "/bin/mail"
            [apps.notes]
            command = "/bin/notes"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        _ = try await bed.daemon.perform(.open(app: "notes"))
        _ = try await bed.daemon.perform(.pressure(.warning))
        let saved = try #require(bed.journal.checkpoint()?.json)
        #expect(saved.contains(#""app":"mail""#))
        _ = bed.launcher.exit("mail", status: 0)
        await bed.settle()
        #expect(bed.journal.checkpoint()?.json == saved)
        await bed.advance(by: .milliseconds(300))
        _ = bed.launcher.exit("notes", status: 0)
        await bed.settle()
        let later = try #require(bed.journal.checkpoint()?.json)
        #expect(!later.contains(#""app":"mail""#) && !later.contains(#""app":"notes""#))
        _ = try await bed.daemon.perform(.open(app: "mail"))
        #expect(bed.journal.checkpoint()?.json.contains(#""app":"mail""#) == true)
        await bed.stop()
    }

    /// A suspended app is measured as soon as its group is frozen, before any sweep: the killer
    /// ranks suspended apps by that figure.
    @Test func anAppIsMeasuredWhenItsGroupIsFrozen() async throws {
        let bed = try await Self.bed(
            """
            [apps.front]
            command = "/bin/front"
            [apps.idle]
            command = "/bin/idle"
            [apps.idle.background]
            grace = "1s"
            """, sampleInterval: .seconds(10))
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "idle"))
        bed.driver.setFootprint(3_000_000, of: "idle")
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        #expect(await bed.control.app(named: "idle")?.state == .suspended)
        #expect(await bed.control.app(named: "idle")?.footprintBytes == 3_000_000)
        await bed.stop()
    }

    /// An app opened again right after a kill for memory gets a group of its own that stays:
    /// the kill's release of the old group (slow to remove here) is the only one, though the
    /// process's end is reported while it runs, and the launch waits for it.
    @Test func anAppOpenedRightAfterAKillKeepsItsNewGroup() async throws {
        let bed = try await Self.bed(
            """
            [apps.front]
            command = "/bin/front"
            [apps.big]
            command = "/bin/big"
            [apps.big.background]
            grace = "1s"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "big"))
        _ = try await bed.daemon.perform(.open(app: "front"))
        await bed.advance(to: .seconds(2))
        #expect(await bed.control.app(named: "big")?.state == .suspended)
        bed.driver.holdRemovals()
        let daemon = bed.daemon
        let kill = Task { try await daemon.perform(.pressure(.critical)) }
        for _ in 0..<2000 where bed.driver.heldRemovals == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(bed.driver.heldRemovals == 1)
        let reopen = Task { try await daemon.perform(.open(app: "big")) }
        // The open and the process's end wait behind the kill; no second release has started.
        for _ in 0..<2000 where daemon.pendingJobs < 3 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(daemon.pendingJobs == 3)
        #expect(bed.driver.heldRemovals == 1)
        bed.driver.releaseRemoval()
        _ = try await kill.value
        _ = try await reopen.value
        bed.driver.releaseRemovals()
        await bed.settle()
        #expect(await bed.control.app(named: "big")?.state == .active)
        #expect(!bed.driver.pids(of: "big").isEmpty)
        await bed.stop()
    }

    /// A crash of a running app is classified as a crash, a clean exit as an exit, and both
    /// leave the app not running with its group removed.
    @Test func aFakeProcessEndIsJournaledAsACrashOrAnExit() async throws {
        let bed = try await Self.bed(
            """
            foreground_slots = 2
            [apps.quitter]
            command = "/bin/quitter"
            [apps.crasher]
            command = "/bin/crasher"
            """)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "quitter"))
        _ = try await bed.daemon.perform(.open(app: "crasher"))
        #expect(bed.launcher.exit("quitter"))
        #expect(bed.launcher.crash("crasher"))
        await bed.settle()
        #expect(try await bed.daemon.terminationReasons(of: "quitter") == ["exited"])
        #expect(try await bed.daemon.terminationReasons(of: "crasher") == ["crashed"])
        #expect(bed.driver.groupNames.isEmpty)
        await bed.stop()
    }

    /// Every timer is served by one task sleeping until the earliest deadline: advancing time
    /// fires the due timers in deadline order, a cancelled timer never fires, and at most two
    /// tasks (the timers and the memory sweep) sleep on the clock however many timers are armed.
    @Test func oneTaskFiresTheDueTimersInDeadlineOrderAndSkipsCancelledOnes() async throws {
        let bed = try await Self.bed(
            """
            [apps.a]
            command = "/bin/a"
            [apps.b]
            command = "/bin/b"
            [apps.c]
            command = "/bin/c"
            [apps.d]
            command = "/bin/d"
            """)
        defer { bed.removeStateDirectory() }
        for (second, app) in ["a", "b", "c", "d"].enumerated() {
            await bed.advance(to: .seconds(second))
            _ = try await bed.daemon.perform(.open(app: app))
        }
        await bed.advance(to: .seconds(4))
        // a's suspension (due at 6 s) is cancelled by opening it again; d's is due at 9 s.
        _ = try await bed.daemon.perform(.open(app: "a"))
        await bed.settle()
        #expect(bed.clock.sleeperDeadlines.count <= 2)
        await bed.advance(to: .seconds(6))
        let suspendedBy6 = bed.journal.entries(JournalQuery(limit: 1000)).filter { $0.name == "suspended" }
        #expect(suspendedBy6.isEmpty)
        await bed.advance(to: .seconds(20))
        let suspended = bed.journal.entries(JournalQuery(limit: 1000)).filter { $0.name == "suspended" }.map(\.app)
        #expect(suspended == ["b", "c", "d"])
        #expect(await bed.control.app(named: "a")?.state == .active)
        #expect(
            bed.driver.calls.filter { if case .freeze = $0 { true } else { false } } == [
                .freeze("b"), .freeze("c"), .freeze("d"),
            ])
        await bed.stop()
    }
}
