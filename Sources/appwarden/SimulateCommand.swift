import ArgumentParser
import Foundation
import WardenSimulator

/// `appwarden simulate FILE`: replays a scenario in virtual time and checks its expectations.
///
/// Exit status: 0 when every expectation holds, 1 when one does not (with a diff of expected
/// against actual), 2 when the scenario is invalid (every problem, naming its step or key).
/// With `--compare CANDIDATE`: 0 when both runs are valid, 2 when the scenario or the candidate is not.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Replay a scenario in virtual time.",
        discussion: """
            Prints the trace (time, app, what happened and why), then the verdict. Exits 0 when \
            every expectation holds, 1 with a diff when one does not, 2 when the scenario is invalid. \
            With --compare CANDIDATE it replays the scenario under its own policy and under the \
            candidate policy file, and prints what would have been different: apps killed or spared \
            (when, and why), terminations, fetch and push windows gained or lost, and the time at each \
            pressure level; it exits 0 when both runs are valid, 2 when the scenario or the candidate is not.
            """
    )

    @Argument(help: "The scenario file (TOML).")
    var file: String

    @Option(help: "A policy file to replay the scenario under as well, and compare.")
    var compare: String?

    @Flag(help: "Print the run as JSON: the verdict, each check, the record and the trace.")
    var json = false

    @Flag(help: "Print only the verdict (and the diff when an expectation does not hold).")
    var quiet = false

    @Flag(
        help:
            "Also print timer arming, oom_score_adj changes, state messages, pressure-level changes and the candidates each memory kill passed over."
    )
    var verbose = false

    func run() async throws {
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(path: file)
        } catch {
            if json {
                let errors = JSONValue.array(
                    error.diagnostics.map { diagnostic in
                        .object([
                            ("file", .string(diagnostic.file)),
                            ("line", diagnostic.line.map { .number(Int64($0)) } ?? .null),
                            ("key", diagnostic.key.map(JSONValue.string) ?? .null),
                            ("message", .string(diagnostic.description)),
                        ])
                    })
                print(JSONValue.object([("valid", .bool(false)), ("errors", errors)]).text)
            } else {
                var standardError = StandardError()
                print(error.description, to: &standardError)
            }
            throw ExitCode(2)
        }
        if let compare {
            try runComparison(scenario, candidatePath: compare)
            return
        }
        var simulator = Simulator(scenario: scenario, tracing: json || !quiet)
        let result = simulator.run()
        if json {
            print(result.json.text)
        } else {
            if !quiet {
                let trace = TraceText.render(result.trace, verbose: verbose)
                if !trace.isEmpty { print(trace) }
            }
            print(result.summary)
            if !result.passed { print(result.diff) }
        }
        if !result.passed { throw ExitCode(1) }
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
