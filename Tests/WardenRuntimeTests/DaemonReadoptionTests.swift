import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A new daemon picks up the apps of one that ended without stopping them.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonReadoptionTests {
    /// Running and frozen apps are re-adopted with their processes, states and deadlines, and
    /// no journal record is lost.
    @Test func aRestartedDaemonReadoptsRunningAndFrozenAppsWithTheirDeadlines() async throws {
        let policy = """
            foreground_slots = 2
            [apps.worker]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.worker.background]
            grace = "1s"
            task_budget = "4s"
            expiration_warning = "1s"
            [apps.sleeper]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.sleeper.background]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["worker", "sleeper"]) { harness in
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "sleeper"))
            _ = try await first.perform(.open(app: "worker"))
            #expect(await eventually { await first.stateName(of: "worker") == "active" })
            _ = try await first.perform(.beginTask(app: "worker", name: "upload"))
            _ = try await first.perform(.home)
            #expect(await eventually { await first.stateName(of: "sleeper") == "suspended" })
            let pids = (
                await first.control.app(named: "worker")?.pids ?? [],
                await first.control.app(named: "sleeper")?.pids ?? []
            )
            let before = try await first.control.journal(JournalQuery(limit: 100_000))
            await first.stop()

            let second = try await harness.start()
            #expect(await second.stateName(of: "worker") == "background")
            #expect(await second.stateName(of: "sleeper") == "suspended")
            #expect(await second.control.app(named: "worker")?.pids == pids.0)
            #expect(await second.control.app(named: "sleeper")?.pids == pids.1)
            let (driver, group) = try harness.group(of: "sleeper")
            #expect(try await driver.isFrozen(group))
            let after = try await second.control.journal(JournalQuery(limit: 100_000))
            #expect(Array(after.prefix(before.count)) == before)
            // The task budget runs on from the first daemon's deadline.
            #expect(
                await eventually(within: .seconds(6)) {
                    try! await second.terminationReasons(of: "worker") == ["backgroundTaskExpired"]
                })
            #expect(try await second.terminationReasons(of: "sleeper").isEmpty)
            let apps = try await second.control.journal(JournalQuery(app: "worker")).filter { $0.name == "$AppStart" }
            #expect(apps.count == 1, "the worker was launched again")
            await second.stop()
        }
    }

    /// An app whose process ended while no daemon ran is reported as exited by the next
    /// daemon and not launched again; the other app is adopted with its process.
    @Test func anAppThatEndedWhileNoDaemonRanIsReportedAsExitedAndNotRelaunched() async throws {
        let policy = """
            foreground_slots = 2
            [apps.gone]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.kept]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["gone", "kept"]) { harness in
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "gone"))
            _ = try await first.perform(.open(app: "kept"))
            #expect(await eventually { await first.control.app(named: "kept")?.pids.isEmpty == false })
            let gonePID = try #require(await first.control.app(named: "gone")?.pids.first)
            let keptPIDs = await first.control.app(named: "kept")?.pids
            await first.stop()
            kill(gonePID, SIGKILL)
            var status: Int32 = 0
            waitpid(gonePID, &status, 0)

            let second = try await harness.start()
            #expect(await eventually { await second.stateName(of: "gone") == "notRunning" })
            #expect(try await second.terminationReasons(of: "gone") == ["exited"])
            #expect(await second.control.app(named: "gone")?.pids == [])
            #expect(await second.stateName(of: "kept") == "active")
            #expect(await second.control.app(named: "kept")?.pids == keptPIDs)
            let (driver, group) = try harness.group(of: "gone")
            #expect(((try? await driver.processes(in: group)) ?? []).isEmpty)
            await second.stop()
        }
    }

    /// A push kept for a force-quit app's next launch survives a restart and is delivered
    /// when the app is opened under the new daemon.
    @Test func aPushKeptForAForceQuitAppSurvivesARestart() async throws {
        let policy = """
            [apps.chat]
            command = "BALLAST"
            background_modes = ["remote-notification"]
            [apps.chat.termination]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["chat"]) { harness in
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "chat"))
            _ = try await first.perform(.forceQuit(app: "chat"))
            #expect(await eventually { await first.stateName(of: "chat") == "notRunning" })
            let payload = #"{"aps":{"content-available":1},"note":"kept"}"#
            let reply = try await first.perform(.push(target: .app("chat"), payload: payload, id: "kept-1"))
            #expect(reply == .push(.pendingLaunch))
            await first.stop()

            let second = try await harness.start()
            _ = try await second.perform(.open(app: "chat"))
            let delivered = try await second.control.journal(JournalQuery(app: "chat")).filter {
                $0.name == "pushPayload"
            }
            #expect(delivered.map { $0.properties["id"] } == ["kept-1"])
            #expect(delivered.first?.properties["payload"] == payload)
            await second.stop()
        }
    }
}
