import ArgumentParser
import FoundationEssentials
import WardenPlatform
import WardenScenario
import WardenSimulator

/// `appwarden simulate FILE…`: replays scenarios in virtual time and checks their expectations.
///
/// Exit status: 0 when every expectation holds, 1 when one does not (with a diff of expected
/// against actual), 2 when a scenario is invalid (every problem, naming its step or key).
/// With `--compare CANDIDATE`: 0 when every run is valid, 2 when a scenario or the candidate is not.
/// Several files are replayed side by side, one per core, and reported in the order given.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Replay scenarios in virtual time.",
        discussion: """
            Prints the trace (time, app, what happened and why), then the verdict. Exits 0 when \
            every expectation holds, 1 with a diff when one does not, 2 when the scenario is invalid. \
            With --compare CANDIDATE it replays the scenario under its own policy and under the \
            candidate policy file, and prints what would have been different: apps killed or spared \
            (when, and why), terminations, fetch and push windows gained or lost, and the time at each \
            pressure level; it exits 0 when both runs are valid, 2 when the scenario or the candidate \
            is not. Given several files, it replays them side by side and prints a line for each, in the \
            order given (PASS or FAIL, the file and the scenario's name, then the diff of a failure, \
            or INVALID and the problems), then the counts; it exits 2 when a file is invalid, else 1 \
            when one fails. With --compare, a line for each file says how many apps the candidate \
            would have spared and killed instead and how many fetch and push windows it would have \
            gained and lost, and a last line gives the totals. --junit FILE writes a JUnit XML report \
            as well, a test case for each scenario.
            """
    )

    @Argument(help: "The scenario files (TOML).")
    var files: [String]

    /// The one file of a run with a single file.
    var file: String { files.first ?? "" }

    @Option(help: "A policy file to replay each scenario under as well, and compare.")
    var compare: String?

    @Option(
        help: ArgumentHelp(
            "Also write a JUnit XML report to this file, a test case for each scenario.", valueName: "file"))
    var junit: String?

    @Flag(help: "Print the run as JSON: the verdict, each check, the record and the trace.")
    var json = false

    @Flag(help: "Print only the verdict (and the diff when an expectation does not hold).")
    var quiet = false

    @Flag(
        help:
            "Also print timer arming, oom_score_adj changes, state messages, pressure-level changes and the candidates each memory kill passed over."
    )
    var verbose = false

    func validate() throws {
        if junit != nil, compare != nil {
            throw ValidationError(
                "--junit reports the scenarios' expectations, which --compare does not check; use one or the other.")
        }
    }

    func run() async throws {
        if let compare, files.count > 1 {
            try await runComparisons(candidatePath: compare)
        } else if files.count > 1 {
            try await runMany()
        } else if let compare {
            let scenario: Scenario
            do {
                scenario = try ScenarioLoader.load(path: file)
            } catch {
                Self.printInvalid(error, json: json)
                throw ExitCode(2)
            }
            try runComparison(scenario, candidatePath: compare)
        } else {
            try runOne()
        }
    }

    /// One file: the trace, the verdict and the diff.
    func runOne() throws {
        let run = ScenarioRun.replay(file, tracing: json || !quiet)
        if let junit { try Self.write(JUnitReport(runs: [run]), to: junit) }
        let result: SimulationResult
        switch run.outcome {
        case .success(let success):
            result = success
        case .failure(let error):
            Self.printInvalid(error, json: json)
            throw ExitCode(2)
        }
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

    /// Prints the problems of an invalid scenario: on standard error, or as JSON on standard output.
    static func printInvalid(_ error: ScenarioError, json: Bool) {
        if json {
            print(JSONValue.object([("valid", .bool(false)), ("errors", invalidJSON(error))]).text)
        } else {
            var standardError = StandardError()
            print(error.description, to: &standardError)
        }
    }

    /// The problems of an invalid scenario as a JSON array, each with its file, line, key and sentence.
    static func invalidJSON(_ error: ScenarioError) -> JSONValue {
        .array(
            error.diagnostics.map { diagnostic in
                .object([
                    ("file", .string(diagnostic.file)),
                    ("line", diagnostic.line.map { .number(Int64($0)) } ?? .null),
                    ("key", diagnostic.key.map(JSONValue.string) ?? .null),
                    ("message", .string(diagnostic.description)),
                ])
            })
    }

    /// Writes `report` to `path`, or says why it cannot and exits 2.
    static func write(_ report: JUnitReport, to path: String) throws {
        do {
            try FileText.writeAtomically(report.xml, to: path)
        } catch {
            var standardError = StandardError()
            print(
                "appwarden: cannot write the JUnit report \"\(path)\": \(error)",
                to: &standardError)
            throw ExitCode(2)
        }
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        StandardStream.error.write(string)
    }
}
