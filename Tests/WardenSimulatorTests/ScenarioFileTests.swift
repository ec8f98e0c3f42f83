import Foundation
import Testing
import WardenScenario
import WardenSimulator

/// The scenario files under Tests/Scenarios and the shipped demo, found from this file's path.
enum ScenarioFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var all: [String] {
        let directory = root.appendingPathComponent("Tests/Scenarios")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let files = names.filter { $0.hasSuffix(".toml") }.sorted().map { "Tests/Scenarios/\($0)" }
        return files + ["scenarios/demo.toml"]
    }

    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }
}

@Suite struct ScenarioFileTests {
    /// There are scenario files to run: the directory is found from the test's own path.
    @Test func scenarioFilesAreFound() {
        #expect(ScenarioFiles.all.count > 30)
    }

    /// Every scenario file loads and every expectation in it holds.
    @Test(arguments: ScenarioFiles.all)
    func scenarioHolds(_ file: String) throws {
        let scenario = try ScenarioLoader.load(path: ScenarioFiles.path(file))
        var simulator = Simulator(scenario: scenario)
        let result = simulator.run()
        #expect(!result.checks.isEmpty, "\(file) expects nothing")
        #expect(result.passed, "\(file):\n\(result.diff)\n\(result.traceText)")
    }

    /// A run without tracing reaches the same verdict and record as a traced one.
    @Test(arguments: ScenarioFiles.all)
    func untracedRunMatchesTracedRun(_ file: String) throws {
        let scenario = try ScenarioLoader.load(path: ScenarioFiles.path(file))
        var traced = Simulator(scenario: scenario)
        var untraced = Simulator(scenario: scenario, tracing: false)
        let tracedResult = traced.run()
        let untracedResult = untraced.run()
        #expect(untracedResult.trace.isEmpty)
        #expect(!tracedResult.trace.isEmpty)
        #expect(untracedResult.record == tracedResult.record)
    }
}
