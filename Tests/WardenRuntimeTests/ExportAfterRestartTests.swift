import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenScenario
import WardenSimulator
import WardenTesting

/// A window of a daemon's journal that begins at a restart, exported and replayed.
struct ExportAfterRestartTests {
    static let policy = """
        foreground_slots = 1
        [apps.mail]
        command = "/bin/mail"
        [apps.maps]
        command = "/bin/maps"
        [apps.notes]
        command = "/bin/notes"
        """

    static func load(_ text: String) throws -> Scenario {
        let path = NSTemporaryDirectory() + "appwarden-export-\(UUID().uuidString).toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ScenarioLoader.load(path: path)
    }

    /// A window that begins at a restart which re-adopted a suspended app, and holds that app's
    /// kill for memory, passes its own replay: the replay starts with no app running, so the file
    /// expects nothing it cannot check, and says so.
    @Test func aWindowBeginningAtARestartPassesItsOwnReplay() async throws {
        // The daemon journals the policy file in force at its start, for the export.
        let policyPath = NSTemporaryDirectory() + "appwarden-policy-\(UUID().uuidString).toml"
        try Self.policy.write(toFile: policyPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: policyPath) }
        let policy = try PolicyLoader.parse(Self.policy, file: policyPath)
        let first = await WardenTestBed.start(policy: policy) { $0.policyPath = policyPath }
        defer { first.removeStateDirectory() }
        _ = try await first.daemon.perform(.open(app: "mail"))
        _ = try await first.daemon.perform(.open(app: "maps"))
        await first.advance(by: .seconds(10))
        #expect(await first.daemon.control.app(named: "mail")?.state == .suspended)
        await first.daemon.stop()

        let restarted = await WardenTestBed.start(
            policy: policy, configure: { $0.policyPath = policyPath },
            restarting: (first.journal, first.stateDirectory),
            prepare: { _, launcher in launcher.takeOver(from: first.launcher) })
        #expect(await restarted.daemon.control.app(named: "mail")?.state == .suspended)
        #expect(await restarted.daemon.control.app(named: "maps")?.state == .active)
        await restarted.advance(by: .seconds(30))
        _ = try await restarted.daemon.perform(.open(app: "notes"))
        await restarted.advance(by: .seconds(10))
        restarted.driver.setFootprint(96 << 20, of: "mail")
        _ = try await restarted.daemon.perform(.pressure(.critical))
        await restarted.settle()
        #expect(await restarted.daemon.control.app(named: "mail")?.state == .notRunning)
        #expect(try await restarted.daemon.terminationReasons(of: "mail") == ["memoryPressure"])
        await restarted.stop()

        let text = try ScenarioExport().scenario(from: first.journal.entries(JournalQuery()))
        #expect(text.contains("already running at the start, which the replay cannot reproduce: mail, maps"))
        #expect(text.contains("so nothing is expected (the replay starts with no app running)"))
        #expect(text.contains("open notes"))
        let scenario = try Self.load(text)
        #expect(scenario.expectations.killOrder == nil)
        #expect(scenario.expectations.terminations == nil)
        var simulator = Simulator(scenario: scenario)
        let result = simulator.run()
        let passed = result.passed
        #expect(passed, Comment(rawValue: text + "\n" + result.diff))
    }
}
