public import WardenScenario

/// One scenario file loaded and replayed, with how long it took: what `appwarden simulate` reports
/// for each file it is given.
public struct ScenarioRun: Sendable {
    /// The file, as it was named.
    public var file: String
    /// The run, or every problem that kept the file from running.
    public var outcome: Result<SimulationResult, ScenarioError>
    /// The wall-clock time spent loading and replaying the file.
    public var duration: Duration

    public init(file: String, outcome: Result<SimulationResult, ScenarioError>, duration: Duration) {
        self.file = file
        self.outcome = outcome
        self.duration = duration
    }

    /// Loads `file` and replays it, tracing the run when `tracing` is set.
    public static func replay(_ file: String, tracing: Bool) -> ScenarioRun {
        let clock = ContinuousClock()
        let start = clock.now
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(path: file)
        } catch {
            return ScenarioRun(file: file, outcome: .failure(error), duration: clock.now - start)
        }
        var simulator = Simulator(scenario: scenario, tracing: tracing)
        let result = simulator.run()
        return ScenarioRun(file: file, outcome: .success(result), duration: clock.now - start)
    }

    /// The run when the file was valid.
    public var result: SimulationResult? {
        guard case .success(let result) = outcome else { return nil }
        return result
    }

    /// The problems when the file was invalid.
    public var error: ScenarioError? {
        guard case .failure(let error) = outcome else { return nil }
        return error
    }

    /// Whether the file was valid and every expectation holds.
    public var passed: Bool { result?.passed ?? false }

    /// The verdict with the file: `PASS kill.toml: kill bands (3 expectations hold)`,
    /// `FAIL kill.toml: kill bands (1 of 3 expectations do not hold)` or
    /// `INVALID kill.toml: 2 problems`.
    public var verdictLine: String {
        switch outcome {
        case .success(let result):
            let all = result.checks
            let failing = all.count { !$0.holds }
            if all.isEmpty {
                return "PASS \(file): \(result.scenario.name) (no expectations)"
            }
            if failing == 0 {
                return
                    "PASS \(file): \(result.scenario.name) (\(all.count) expectation\(all.count == 1 ? " holds" : "s hold"))"
            }
            return "FAIL \(file): \(result.scenario.name) (\(failing) of \(all.count) expectations do not hold)"
        case .failure(let error):
            let count = error.diagnostics.count
            return "INVALID \(file): \(count) problem\(count == 1 ? "" : "s")"
        }
    }
}
