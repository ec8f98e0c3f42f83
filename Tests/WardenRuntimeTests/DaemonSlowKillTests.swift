import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// A victim that does not die when killed (here: held in a frozen v1 freezer group of the
/// test's own, where SIGKILL waits until it is thawed, as a process in uninterruptible sleep
/// waits until it wakes) must not hold up the daemon: its group is waited for beside the loop.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast, .requiresV1Freezer)
struct DaemonSlowKillTests {
    /// An app that never says it is ready, killed at its launch timeout of 1 s.
    static let stuckApp = """
        [apps.stuck]
        command = "BALLAST"
        args = ["--hold", "8"]
        readiness = "notify"
        [apps.stuck.launch]
        timeout = "1s"
        """

    /// `stuck` never says it is ready and is killed at its launch timeout while it cannot die:
    /// opening `other` is answered at once, not after the kill's timeout, and once `stuck` can
    /// die its group is removed and nothing of it is left.
    @Test func aVictimThatCannotDieYetDoesNotHoldUpTheDaemon() async throws {
        let policy = """
            foreground_slots = 2
            \(Self.stuckApp)
            [apps.other]
            command = "BALLAST"
            args = ["--hold", "8"]
            """
        let holder = try HeldProcesses()
        do {
            try await DaemonHarness.run(policy: policy, apps: ["stuck", "other"]) { harness in
                let daemon = try await harness.start(stopAppsOnExit: true)
                _ = try await daemon.perform(.open(app: "stuck"))
                let pids = try #require(await daemon.control.app(named: "stuck")?.pids)
                try #require(!pids.isEmpty)
                try holder.hold(pids)

                #expect(try await eventually { try await daemon.terminationReasons(of: "stuck") == ["launchTimeout"] })
                // The kill has begun (its journal entry comes before it) and cannot end.
                try await Task.sleep(for: .milliseconds(300))
                let (driver, group) = try harness.group(of: "stuck")
                #expect(try await driver.processes(in: group) == pids)
                let clock = ContinuousClock()
                let started = clock.now
                _ = try await daemon.perform(.open(app: "other"))
                let waited = started.duration(to: clock.now)
                // Waiting on the loop for the kill would take its 5 s timeout, and then as long again.
                #expect(waited < .seconds(3), "opening another app waited \(waited)")
                #expect(await daemon.stateName(of: "other") == "active")
                #expect(await daemon.stateName(of: "stuck") == "notRunning")

                try holder.release()
                #expect(await eventually { ((try? await driver.processes(in: group)) ?? [1]).isEmpty })
                #expect(await eventually { !FileManager.default.fileExists(atPath: group.allPaths[0]) })
                await daemon.stop()
            }
        } catch {
            try? holder.release()
            throw error
        }
        try holder.release()
    }

    /// `serve` stopped with SIGTERM while it waits for such a victim exits at once: the wait
    /// beside the loop ends with it.
    @Test(.requiresAppwardenExecutable)
    func serveExitsAtOnceWhileItWaitsForAVictimThatCannotDieYet() async throws {
        let policy = Self.stuckApp
        let holder = try HeldProcesses()
        do {
            try await DaemonHarness.run(policy: policy, apps: ["stuck"]) { harness in
                let options = harness.options
                let daemon = try DaemonServeTests.launch([
                    "serve", "--policy", options.policyPath, "--socket", options.socketPath, "--state-dir",
                    options.stateDirectory, "--cgroup-root", options.cgroupRoot, "--lock-dir", options.lockDirectory,
                ])
                defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
                #expect(await eventually(within: .seconds(30)) { await DaemonServeTests.answers(options.socketPath) })
                // `open` answers once the app is ready, which it never is: it runs while the app is held.
                async let open = AppwardenCommandLine.run(["open", "stuck", "--socket", options.socketPath])
                let (driver, group) = try harness.group(of: "stuck")
                // Held only once it runs the app's program: a child frozen between fork and exec
                // would hold up the launch itself, which this test is not about.
                #expect(
                    await eventually {
                        let pids = (try? await driver.processes(in: group)) ?? []
                        return !pids.isEmpty && pids.allSatisfy(Self.runsBallast)
                    })
                try holder.hold(try await driver.processes(in: group))
                _ = try? await open
                let events = ["events", "--app", "stuck", "--socket", options.socketPath]
                #expect(
                    try await eventually {
                        try await AppwardenCommandLine.run(events).output.contains("launchTimeout")
                    })
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await driver.processes(in: group).isEmpty == false)

                let clock = ContinuousClock()
                let started = clock.now
                daemon.terminate()
                #expect(await eventually { !daemon.isRunning })
                let waited = started.duration(to: clock.now)
                // The wait beside the loop gives up only after 5 s.
                #expect(waited < .seconds(3), "the daemon took \(waited) to exit")
                #expect(daemon.terminationStatus == 0)
                try holder.release()
            }
        } catch {
            try? holder.release()
            throw error
        }
        try holder.release()
    }
}

extension DaemonSlowKillTests {
    /// Whether process `pid` has exec'd the test workload (its command line names ballast).
    static func runsBallast(_ pid: Int32) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: data, as: UTF8.self).contains("ballast")
    }
}

/// Processes held in a frozen group of the test's own v1 freezer hierarchy: SIGKILL sent to
/// them waits until `release()` thaws the group.
private final class HeldProcesses {
    private let directory: String

    init() throws {
        let mount = try #require(try CgroupLayout.read().v1Hierarchies["freezer"]?.mountPoint)
        directory = mount + "/" + TestCgroupName.unique()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    }

    /// Moves `pids` into the group and freezes it.
    func hold(_ pids: [Int32]) throws {
        for pid in pids {
            try String(pid).write(toFile: directory + "/cgroup.procs", atomically: false, encoding: .utf8)
        }
        try "FROZEN".write(toFile: directory + "/freezer.state", atomically: false, encoding: .utf8)
    }

    /// Thaws the group and removes it once its processes are gone; a second call does nothing.
    func release() throws {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        try "THAWED".write(toFile: directory + "/freezer.state", atomically: false, encoding: .utf8)
        let deadline = ContinuousClock.now + .seconds(10)
        while rmdir(directory) != 0 && ContinuousClock.now < deadline {
            usleep(20_000)
        }
    }
}
