import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// The daemon driving real apps in real groups through suspension, fetch windows and task budgets.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonLifecycleTests {
    /// An app holding its declared resource path open when suspended is terminated with
    /// heldSharedResource; one that does not hold it is frozen and its CPU time stops.
    @Test func anAppHoldingItsResourceAtSuspensionIsTerminatedAndOneThatClosedItIsFrozen() async throws {
        let policy = """
            foreground_slots = 2
            [resources.camera]
            paths = ["DIR/camera.lock"]
            [apps.holder]
            command = "BALLAST"
            args = ["--hold", "1", "--open", "DIR/camera.lock"]
            resources = ["camera"]
            [apps.holder.background]
            grace = "1s"
            [apps.spinner]
            command = "/bin/sh"
            args = ["-c", "while :; do :; done"]
            resources = ["camera"]
            [apps.spinner.background]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["holder", "spinner"]) { harness in
            let daemon = try await harness.start()
            _ = try await daemon.perform(.open(app: "holder"))
            _ = try await daemon.perform(.open(app: "spinner"))
            #expect(await eventually { await daemon.control.app(named: "holder")?.pids.isEmpty == false })
            try await Task.sleep(for: .milliseconds(300))
            _ = try await daemon.perform(.home)
            #expect(await eventually { await daemon.stateName(of: "holder") == "notRunning" })
            #expect(try await daemon.terminationReasons(of: "holder") == ["heldSharedResource"])
            #expect(await eventually { await daemon.stateName(of: "spinner") == "suspended" })
            let (driver, group) = try harness.group(of: "spinner")
            // The model says suspended as soon as the core decides; the freeze follows.
            #expect(await eventually { (try? await driver.isFrozen(group)) == true })
            let before = try Self.cpuMicroseconds(of: group)
            try await Task.sleep(for: .milliseconds(500))
            let after = try Self.cpuMicroseconds(of: group)
            #expect(after == before, "a frozen group used \(after - before) µs of CPU")
            await daemon.stop()
        }
    }

    /// Apps learn their socket, name, launch reason and restoration directory from the
    /// environment; after a system termination the next launch is asked to restore, and a
    /// force-quit deletes the restoration directory.
    @Test func theEnvironmentCarriesTheRestorationDirectoryAndTheRestoreFlagAfterASystemTermination() async throws {
        let policy = """
            [apps.notes]
            command = "BALLAST"
            args = ["--hold", "1"]
            [apps.notes.background]
            grace = "1s"
            [apps.notes.termination]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["notes"]) { harness in
            let daemon = try await harness.start()
            _ = try await daemon.perform(.open(app: "notes"))
            let first = try #require(await daemon.control.app(named: "notes")?.pids.first)
            let environment = try Self.environment(of: first)
            let restoration = harness.options.restorationDirectory(of: "notes")
            #expect(environment["APPWARDEN_APP"] == "notes")
            #expect(environment["APPWARDEN_SOCKET"] == harness.options.socketPath)
            #expect(environment["APPWARDEN_LAUNCH_REASON"] == "user")
            #expect(environment["APPWARDEN_RESTORATION_DIR"] == restoration)
            #expect(environment["APPWARDEN_RESTORE"] == nil)
            #expect(FileManager.default.fileExists(atPath: restoration))

            _ = try await daemon.perform(.home)
            #expect(await eventually { await daemon.stateName(of: "notes") == "suspended" })
            _ = try await daemon.perform(.pressure(.critical))
            #expect(await daemon.stateName(of: "notes") == "notRunning")
            _ = try await daemon.perform(.open(app: "notes"))
            let second = try #require(await daemon.control.app(named: "notes")?.pids.first)
            #expect(second != first)
            #expect(try Self.environment(of: second)["APPWARDEN_RESTORE"] == "1")

            _ = try await daemon.perform(.forceQuit(app: "notes"))
            #expect(await eventually { await daemon.stateName(of: "notes") == "notRunning" })
            #expect(!FileManager.default.fileExists(atPath: restoration))
            await daemon.stop()
        }
    }

    /// The environment of a running process, from /proc.
    static func environment(of pid: Int32) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        var result: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return result
    }

    /// The CPU time the group has used, from the cgroup2 `cpu.stat`.
    static func cpuMicroseconds(of group: AppGroup) throws -> Int {
        let text = try String(contentsOfFile: (group.unifiedPath ?? "") + "/cpu.stat", encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("usage_usec ") {
            return Int(line.dropFirst("usage_usec ".count)) ?? -1
        }
        return -1
    }
}
