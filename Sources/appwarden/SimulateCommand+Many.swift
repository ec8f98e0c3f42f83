import ArgumentParser
import FoundationEssentials
import WardenScenario
import WardenSimulator

/// `appwarden simulate FILE FILE…`: many scenarios, replayed side by side.
extension SimulateCommand {
    /// How many files are replayed at once: one per core.
    static var width: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Replays every file, one per core, and prints a verdict line for each in the order given
    /// (with the diff of a failure, or the problems of an invalid file), then the counts.
    /// Exits 2 when a file is invalid, else 1 when a file fails.
    func runMany() async throws {
        let tracing = json
        var runs: [ScenarioRun] = []
        await ScenarioBatch.run(
            files, width: Self.width, work: { ScenarioRun.replay($0, tracing: tracing) },
            report: { _, run in
                runs.append(run)
                if !json { print(Self.text(run)) }
            })
        let passed = runs.count(where: \.passed)
        let invalid = runs.count { $0.error != nil }
        let failed = runs.count - passed - invalid
        if json {
            print(
                JSONValue.object([
                    ("passed", .number(Int64(passed))), ("failed", .number(Int64(failed))),
                    ("invalid", .number(Int64(invalid))), ("scenarios", .array(runs.map(Self.json))),
                ]
                ).text)
        } else {
            print(Self.countLine(passed: passed, failed: failed, invalid: invalid))
        }
        if let junit { try Self.write(JUnitReport(runs: runs), to: junit) }
        if invalid > 0 { throw ExitCode(2) }
        if failed > 0 { throw ExitCode(1) }
    }

    /// A file's verdict line, then its diff or its problems, indented.
    static func text(_ run: ScenarioRun) -> String {
        var lines = [run.verdictLine]
        switch run.outcome {
        case .success(let result) where !result.passed:
            lines.append(indented(result.diff))
        case .success:
            break
        case .failure(let error):
            lines.append(indented(error.description))
        }
        return lines.joined(separator: "\n")
    }

    /// `3 scenarios: 1 passed, 1 failed, 1 invalid.`
    static func countLine(passed: Int, failed: Int, invalid: Int) -> String {
        let total = passed + failed + invalid
        var line = "\(total) scenario\(total == 1 ? "" : "s"): \(passed) passed, \(failed) failed"
        if invalid > 0 { line += ", \(invalid) invalid" }
        return line + "."
    }

    /// A file's run as JSON: what `simulate --json FILE` prints for it alone, with the file named
    /// when it is invalid.
    static func json(_ run: ScenarioRun) -> JSONValue {
        switch run.outcome {
        case .success(let result):
            result.json
        case .failure(let error):
            .object([("file", .string(run.file)), ("valid", .bool(false)), ("errors", invalidJSON(error))])
        }
    }

    /// `text` with every line indented by two spaces.
    static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}
