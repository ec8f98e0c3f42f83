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

/// A fork bomb inside one app, under a real daemon: the policy's `tasks_max` caps the app's
/// group and the daemon and the other app carry on; an app's background children end with it.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonForkBombTests {
    /// An app forking without end stays within its `tasks_max`; the daemon answers and the other
    /// app keeps its process meanwhile.
    @Test(.requiresExecutable("/bin/bash"))
    func aForkBombIsCappedByItsTaskLimitWhileTheDaemonAnswers() async throws {
        let limit = 16
        let policy = """
            foreground_slots = 2
            [apps.calm]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.bomb]
            command = "/bin/bash"
            args = ["-c", "while :; do /bin/sleep 600 & done"]
            tasks_max = \(limit)
            [apps.bomb.termination]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["calm", "bomb"]) { harness in
            let daemon = try await harness.start()
            _ = try await daemon.perform(.open(app: "calm"))
            #expect(await eventually { await daemon.control.app(named: "calm")?.pids.isEmpty == false })
            let calm = try #require(await daemon.control.app(named: "calm")?.pids)
            _ = try await daemon.perform(.open(app: "bomb"))

            let (_, group) = try harness.group(of: "bomb")
            let directory = try #require(group.pidsPath ?? group.unifiedPath, "the bomb's group has no pids directory")
            #expect(
                await eventually(within: .seconds(30)) {
                    ((try? TaskLimitFiles.read(in: directory))?.refusedForks ?? 0) > 0
                }, "the kernel never refused a fork in the bomb's group")
            var highest = 0
            for _ in 0..<100 {
                highest = max(highest, (try? TaskLimitFiles.read(in: directory))?.current ?? 0)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(highest <= limit, "the bomb's group held \(highest) tasks, more than its limit of \(limit)")

            // The daemon still answers, and the other app is untouched.
            #expect(await daemon.stateName(of: "calm") != "notRunning")
            #expect(await daemon.control.app(named: "calm")?.pids == calm)
            await daemon.stop()
        }
    }

    /// Children an app started in the background are killed when its main process ends, so
    /// nothing runs unsupervised in the group of an app that is not running.
    @Test func childrenLeftBehindByAnEndedAppAreKilled() async throws {
        let policy = """
            [apps.parent]
            command = "/bin/sh"
            args = ["-c", "/bin/sleep 600 & /bin/sleep 600 & /bin/sleep 1; exit 0"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["parent"]) { harness in
            let daemon = try await harness.start()
            _ = try await daemon.perform(.open(app: "parent"))
            let (driver, group) = try harness.group(of: "parent")
            #expect(await eventually { ((try? await driver.processes(in: group)) ?? []).count >= 3 })
            #expect(await eventually(within: .seconds(20)) { await daemon.stateName(of: "parent") == "notRunning" })
            #expect(
                await eventually(within: .seconds(20)) { ((try? await driver.processes(in: group)) ?? []).isEmpty },
                "the app's background children outlived it")
            await daemon.stop()
        }
    }
}
