import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// How the daemon notices process ends, pretends in a dry run, and stops.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonProcessTests {
    /// A foreground app and one that is suspended a second after it leaves the foreground.
    static let frontAndBack = """
        [apps.front]
        command = "BALLAST"
        args = ["--hold", "1"]
        [apps.back]
        command = "BALLAST"
        args = ["--hold", "1"]
        [apps.back.background]
        grace = "1s"
        """

    /// A process that exits with status 0 is journaled as exited, one that aborts as crashed,
    /// both within moments of ending.
    @Test func aCleanExitIsJournaledAsExitedAndAnAbortAsCrashed() async throws {
        let policy = """
            foreground_slots = 2
            [apps.quitter]
            command = "BALLAST"
            args = ["--exit-after", "300ms"]
            [apps.crasher]
            command = "BALLAST"
            args = ["--crash-after", "300ms"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["quitter", "crasher"]) { harness in
            let daemon = try await harness.start()
            _ = try await daemon.perform(.open(app: "quitter"))
            _ = try await daemon.perform(.open(app: "crasher"))
            #expect(await eventually(within: .seconds(3)) { await daemon.stateName(of: "quitter") == "notRunning" })
            #expect(await eventually(within: .seconds(3)) { await daemon.stateName(of: "crasher") == "notRunning" })
            #expect(try await daemon.terminationReasons(of: "quitter") == ["exited"])
            #expect(try await daemon.terminationReasons(of: "crasher") == ["crashed"])
            await daemon.stop()
        }
    }

    /// A daemon raises its soft limit on open files to the hard one: a thousand apps each hold
    /// a pidfd, a memory watch and a memory-pressure socket, past systemd's default of 1,024.
    @Test func theDaemonRaisesItsOpenFileLimitToTheHardLimit() async throws {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let hard = limit.rlim_max
        limit.rlim_cur = min(512, hard)
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        try await DaemonHarness.run(policy: "[apps.idle]\ncommand = \"BALLAST\"\n", apps: ["idle"]) { harness in
            let daemon = try await harness.start()
            var raised = rlimit()
            #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0)
            #expect(raised.rlim_cur == hard)
            await daemon.stop()
        }
    }

    /// In a dry run the model suspends and kills as usual, but the group is neither frozen nor
    /// killed.
    @Test func aDryRunNeitherFreezesNorKills() async throws {
        let policy = """
            [apps.idle]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.idle.background]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["idle"]) { harness in
            let daemon = try await harness.start(dryRun: true)
            _ = try await daemon.perform(.open(app: "idle"))
            #expect(await eventually { await daemon.control.app(named: "idle")?.pids.isEmpty == false })
            _ = try await daemon.perform(.home)
            #expect(await eventually { await daemon.stateName(of: "idle") == "suspended" })
            let (driver, group) = try harness.group(of: "idle")
            #expect(try await !driver.isFrozen(group))
            _ = try await daemon.perform(.pressure(.critical))
            #expect(try await daemon.terminationReasons(of: "idle") == ["memoryPressure"])
            #expect(try await !driver.processes(in: group).isEmpty)
            await daemon.stop()
        }
    }

    /// With stop-apps-on-exit, stopping the daemon kills every app and removes the groups;
    /// without it, the apps keep running.
    @Test func stoppingTheDaemonLeavesAppsRunningUnlessAskedToStopThem() async throws {
        let policy = """
            [apps.steady]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["steady"]) { harness in
            let (driver, group) = try harness.group(of: "steady")
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "steady"))
            #expect(await eventually { await first.control.app(named: "steady")?.pids.isEmpty == false })
            await first.stop()
            #expect(try await !driver.processes(in: group).isEmpty)

            let second = try await harness.start(stopAppsOnExit: true)
            #expect(await second.stateName(of: "steady") == "active")
            await second.stop()
            #expect(((try? await driver.processes(in: group)) ?? []).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: group.unifiedPath ?? "/"))
        }
    }

    /// Where cgroup2 freezes the groups, the kernel's notice puts a group thawed or frozen
    /// behind the daemon's back right at once, with no look at the groups due for a long while
    /// (a look every 1,000 sweeps): a suspended app thawed by another program is frozen again,
    /// a running app frozen is thawed.
    @Test func aGroupThawedOrFrozenBehindTheDaemonsBackIsPutRightAtOnce() async throws {
        try await DaemonHarness.run(policy: Self.frontAndBack, apps: ["front", "back"]) { harness in
            var options = harness.options
            options.freezerCheckSweeps = 1_000
            options.suspendedSampleSweeps = 1_000
            let daemon = try await harness.start(options: options)
            _ = try await daemon.perform(.open(app: "back"))
            _ = try await daemon.perform(.open(app: "front"))
            #expect(await eventually { await daemon.stateName(of: "back") == "suspended" })
            let (driver, back) = try harness.group(of: "back")
            let (_, front) = try harness.group(of: "front")
            let backFreeze = try #require(back.unifiedPath) + "/cgroup.freeze"
            let frontFreeze = try #require(front.unifiedPath) + "/cgroup.freeze"
            #expect(await eventually { (try? await driver.isFrozen(back)) == true })

            #expect(throws: Never.self) { try "0".write(toFile: backFreeze, atomically: false, encoding: .utf8) }
            #expect(await eventually(within: .seconds(3)) { (try? await driver.isFrozen(back)) == true })
            #expect(try String(contentsOfFile: backFreeze, encoding: .utf8).hasPrefix("1"))

            #expect(throws: Never.self) { try "1".write(toFile: frontFreeze, atomically: false, encoding: .utf8) }
            #expect(
                await eventually(within: .seconds(3)) {
                    (try? String(contentsOfFile: frontFreeze, encoding: .utf8))?.hasPrefix("0") == true
                })
            #expect(await eventually(within: .seconds(3)) { (try? await driver.isFrozen(front)) == false })
            #expect(await daemon.stateName(of: "front") == "active")
            #expect(await daemon.stateName(of: "back") == "suspended")
            await daemon.stop()
        }
    }

    /// A suspended app's processes get a higher oom_score_adj than the foreground app's.
    @Test func aSuspendedAppIsScoredAboveTheForegroundAppForTheKernelsKiller() async throws {
        try await DaemonHarness.run(policy: Self.frontAndBack, apps: ["front", "back"]) { harness in
            let daemon = try await harness.start()
            _ = try await daemon.perform(.open(app: "back"))
            _ = try await daemon.perform(.open(app: "front"))
            #expect(await eventually { await daemon.stateName(of: "back") == "suspended" })
            let adjuster = OOMScoreAdjuster()
            let frontPID = try #require(await daemon.control.app(named: "front")?.pids.first)
            let backPID = try #require(await daemon.control.app(named: "back")?.pids.first)
            let front = try #require(try adjuster.value(of: frontPID))
            let back = try #require(try adjuster.value(of: backPID))
            #expect(back > front)
            await daemon.stop()
        }
    }
}
