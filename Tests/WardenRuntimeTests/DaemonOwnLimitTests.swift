import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// An app that reaches its own `memory_max`, on real groups: the kernel kills it there, and that
/// is the app's own event, not the device's pressure.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonOwnLimitTests {
    /// `leak` (with a child of its own) grows past its 96 MiB limit beside a suspended `idle`:
    /// it ends with `memoryLimit` and the figures in `explain`, nothing of it is left in its
    /// group, the level never moves, and `idle` lives.
    @Test func anAppOutgrowingItsOwnLimitIsTheOnlyAppLost() async throws {
        let policy = """
            [apps.idle]
            command = "BALLAST"
            args = ["--hold", "32"]
            [apps.idle.background]
            grace = "1s"
            [apps.leak]
            command = "/bin/sh"
            args = ["-c", "sleep 600 & exec BALLAST --hold 16 --grow 16 --every 100ms"]
            memory_max = "96MiB"
            """
        try await DaemonHarness.run(policy: policy, apps: ["idle", "leak"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            _ = try await daemon.perform(.open(app: "idle"))
            #expect(await eventually { await daemon.control.app(named: "idle")?.pids.isEmpty == false })
            _ = try await daemon.perform(.open(app: "leak"))
            #expect(await eventually { await daemon.stateName(of: "idle") == "suspended" })
            #expect(
                try await eventually(within: .seconds(20)) { try await daemon.terminationReasons(of: "leak") != [] })
            #expect(try await daemon.terminationReasons(of: "leak") == ["memoryLimit"])

            let explanation = try await daemon.control.explain(app: "leak").sentences.joined(separator: "\n")
            #expect(explanation.contains("Killed by the kernel at its memory limit of 96MiB"), "\(explanation)")
            #expect(!explanation.contains("crashed"))
            // Nothing of the app is left in its group.
            #expect(await eventually { await daemon.control.app(named: "leak")?.pids.isEmpty == true })
            let driver = try CgroupDrivers.make(
                layout: try CgroupLayout.read(),
                configuration: CgroupConfiguration(rootName: harness.options.cgroupRoot))
            #expect(await eventually { ((try? await driver.processes(in: driver.group(named: "leak"))) ?? []).isEmpty })
            // The device's level never moved and the idle app lives.
            let system = try await daemon.control.journal(JournalQuery(app: JournalEntry.systemApp, limit: 1000))
            #expect(!system.contains { $0.name == "pressureChanged" }, "\(system.map(\.name))")
            #expect(try await daemon.terminationReasons(of: "idle").isEmpty)
            #expect(await daemon.stateName(of: "idle") == "suspended")
            await daemon.stop()
        }
    }
}
