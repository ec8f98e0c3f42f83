import Foundation
import Testing
import WardenCore
import WardenScenario
import WardenSimulator
import WardenTesting

/// The daemon in virtual time against every scenario file: what a scenario asserts in the
/// simulator is what the daemon does, with the manual clock, the fake driver and the fake launcher.
@Suite struct ScenarioConformanceTests {
    /// Every scenario file under `Tests/Scenarios` and `scenarios/`.
    static let files: [String] = {
        let tests = ((#filePath as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        let repository = (tests as NSString).deletingLastPathComponent
        var files: [String] = []
        for folder in [tests + "/Scenarios", repository + "/scenarios"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            files += names.filter { $0.hasSuffix(".toml") }.sorted().map { folder + "/" + $0 }
        }
        return files
    }()

    /// Every scenario's expectations hold for the daemon as they do for the simulator.
    @Test func everyScenarioHoldsForTheDaemonInVirtualTime() async throws {
        #expect(Self.files.count >= 40)
        var agreeing = 0
        var disagreements: [String] = []
        for file in Self.files {
            let scenario = try ScenarioLoader.load(path: file)
            var simulator = Simulator(scenario: scenario, tracing: false)
            let simulated = simulator.run()
            var replay = await ScenarioReplay.start(scenario)
            var checks = await replay.run()
            await replay.bed.stop()
            // `refused` lists the refused steps; the simulator's check carries what is expected.
            if let refused = simulated.checks.first(where: { $0.key == "refused" }) {
                checks.append(ExpectationCheck(key: "refused", expected: refused.expected, actual: replay.refusals))
            }
            // Every step the simulator refused, the daemon refuses too, with the same code.
            let stepTexts = Set(scenario.steps.map(\.text))
            let simulatedRefusals = simulated.record.refusals.filter { stepTexts.contains($0.what) }.map {
                TraceText.refusalLine($0.what, at: $0.time, code: $0.error.code.rawValue)
            }
            checks.append(
                ExpectationCheck(key: "refused steps", expected: simulatedRefusals, actual: replay.refusals))
            var failing = checks.filter { !$0.holds }
            // A key the simulator checks and the replay does not is a gap, not an agreement.
            let unchecked = Set(simulated.checks.map(\.key)).subtracting(checks.map(\.key))
            for key in unchecked.sorted() {
                failing.append(ExpectationCheck(key: key, expected: ["checked against the daemon"], actual: []))
            }
            if failing.isEmpty && simulated.passed {
                agreeing += 1
            } else {
                let name = (file as NSString).lastPathComponent
                disagreements.append("\(name):\n" + failing.map(\.diff).joined(separator: "\n"))
            }
        }
        print("The daemon in virtual time agrees with \(agreeing) of \(Self.files.count) scenarios.")
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n\n"))")
        #expect(agreeing == Self.files.count)
    }
}
