import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenScenario
import WardenSimulator
import WardenTesting

/// A real daemon's day, with real apps in real groups, exported as a scenario and replayed.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast, .requiresAppwardenExecutable)
struct ExportFidelityTests {
    static let policy = """
        foreground_slots = 1
        [apps.mail]
        command = "BALLAST"
        args = ["--hold", "24"]
        [apps.mail.background]
        grace = "1s"
        [apps.maps]
        command = "BALLAST"
        args = ["--hold", "48"]
        [apps.maps.background]
        grace = "1s"
        [apps.chat]
        command = "BALLAST"
        args = ["--hold", "8", "--push", "complete:newData:0.2s"]
        background_modes = ["remote-notification"]
        [apps.chat.background]
        grace = "1s"
        [apps.crashy]
        command = "BALLAST"
        args = ["--hold", "2", "--crash-after", "1s"]
        [apps.front]
        command = "BALLAST"
        args = ["--hold", "4"]
        """

    /// A short day (apps opened and sent home, a silent push answered, a crash, a memory kill),
    /// exported over the socket and offline from a copy of the state directory, replays with
    /// exit 0 and the same kill order; a candidate that protects the victim names the app that
    /// would have died instead.
    @Test func aRealDayExportedOverTheSocketAndOfflineReplaysAsItHappened() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["mail", "maps", "chat", "crashy", "front"]) {
            harness in
            let daemon = try await harness.start()
            let socketExport = harness.directory + "/socket-export.toml"
            try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                for name in ["mail", "maps"] {
                    _ = try await daemon.perform(.open(app: name))
                    #expect(await eventually { await daemon.control.app(named: name)?.pids.isEmpty == false })
                }
                _ = try await daemon.perform(.open(app: "crashy"))
                #expect(try await eventually { try await daemon.terminationReasons(of: "crashy") == ["crashed"] })
                _ = try await daemon.perform(.open(app: "front"))
                let payload = #"{"aps":{"content-available":1},"id":"m1"}"#
                _ = try await daemon.perform(.push(target: .app("chat"), payload: payload, id: "m1"))
                for (name, mebibytes) in [("mail", 24), ("maps", 48), ("chat", 8)] {
                    #expect(await eventually { await daemon.stateName(of: name) == "suspended" })
                    #expect(
                        await eventually {
                            (await daemon.control.app(named: name)?.footprintBytes ?? 0) >= Int64(mebibytes) << 20
                        })
                }
                _ = try await daemon.perform(.pressure(.critical))
                #expect(await daemon.stateName(of: "maps") == "notRunning")
                #expect(try await daemon.terminationReasons(of: "maps") == ["memoryPressure"])
                let exported = try await AppwardenCommandLine.run(
                    ["export", "--socket", harness.options.socketPath, "-o", socketExport])
                #expect(exported.code == 0, "\(exported.error)")
            }
            await daemon.stop()
            let copy = harness.directory + "/copied-state"
            try FileManager.default.copyItem(atPath: harness.options.stateDirectory, toPath: copy)
            let offlineExport = harness.directory + "/offline-export.toml"
            let offline = try await AppwardenCommandLine.run(["export", "--state-dir", copy, "-o", offlineExport])
            #expect(offline.code == 0, "\(offline.error)")

            for file in [socketExport, offlineExport] {
                let scenario = try ScenarioLoader.load(path: file)
                #expect(scenario.expectations.killOrder == ["maps"])
                #expect(scenario.expectations.terminations == ["crashy crashed", "maps memoryPressure"])
                #expect(scenario.steps.contains { $0.text.hasSuffix("chat complete-push newData") })
                var simulator = Simulator(scenario: scenario)
                let result = simulator.run()
                #expect(result.passed, Comment(rawValue: file + ":\n" + result.diff))
                let replayed = try await AppwardenCommandLine.run(["simulate", "--quiet", file])
                #expect(replayed.code == 0, "\(replayed.output)\(replayed.error)")
            }

            // The same day under a policy that protects maps: mail would have died instead.
            let candidate = harness.directory + "/candidate.toml"
            try (try String(contentsOfFile: harness.options.policyPath, encoding: .utf8))
                .replacingOccurrences(of: "[apps.maps]\n", with: "[apps.maps]\nprotected = true\n")
                .write(toFile: candidate, atomically: true, encoding: .utf8)
            let compared = try await AppwardenCommandLine.run(["simulate", "--compare", candidate, socketExport])
            #expect(compared.code == 0, "\(compared.error)")
            #expect(compared.output.contains("Spared: maps"))
            #expect(compared.output.contains("Killed instead: mail"))
            let json = try await AppwardenCommandLine.run(["simulate", "--json", "--compare", candidate, socketExport])
            #expect(json.code == 0)
            #expect(json.output.contains(#""candidateKillOrder":["mail"]"#))
        }
    }
}
