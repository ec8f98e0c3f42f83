import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

/// Apps that keep no connection learn of their messages by the signals the policy maps to them.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonSignalTests {
    /// A shell app whose policy maps save_state to SIGUSR1 runs its trap when sent home, and
    /// lives on; an app without the mapping gets no signal and lives on too.
    @Test func aMappedSignalReachesTheAppsProcessWithItsMessage() async throws {
        let script = "trap 'echo got >> DIR/NAME.signals' USR1; : > DIR/NAME.started; while true; do sleep 0.1; done"
        let policy = """
            [apps.legacy]
            command = "/bin/sh"
            args = ["-c", "\(script.replacingOccurrences(of: "NAME", with: "legacy"))"]
            signals = { save_state = "SIGUSR1" }
            [apps.legacy.background]
            grace = "5s"
            [apps.plain]
            command = "/bin/sh"
            args = ["-c", "\(script.replacingOccurrences(of: "NAME", with: "plain"))"]
            [apps.plain.background]
            grace = "5s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["legacy", "plain"]) { harness in
            let daemon = try await harness.start()
            let file = { (app: String) in harness.directory + "/\(app).signals" }
            for app in ["plain", "legacy"] {
                _ = try await daemon.perform(.open(app: app))
                #expect(
                    await eventually { FileManager.default.fileExists(atPath: harness.directory + "/\(app).started") })
                #expect(!FileManager.default.fileExists(atPath: file(app)))
            }
            // Opening legacy sent plain home (one foreground slot) without a mapping.
            #expect(await daemon.stateName(of: "plain") == "background")
            _ = try await daemon.perform(.home)
            #expect(await daemon.stateName(of: "legacy") == "background")
            #expect(
                await eventually {
                    (try? String(contentsOfFile: file("legacy"), encoding: .utf8)) == "got\n"
                })
            try? await Task.sleep(for: .milliseconds(300))
            #expect(!FileManager.default.fileExists(atPath: file("plain")))
            #expect(await daemon.control.app(named: "legacy")?.pids.isEmpty == false)
            #expect(try await daemon.terminationReasons(of: "legacy").isEmpty)
            await daemon.stop()
        }
    }
}
