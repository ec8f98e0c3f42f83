import ArgumentParser
import WardenAPI
import WardenCore
import WardenPolicy
import WardenScenario
import WardenSimulator

/// `appwarden simulate --compare CANDIDATE FILE`: what another policy would have done.
extension SimulateCommand {
    /// Replays `scenario` under its policy and the candidate's, and prints the differences.
    func runComparison(_ scenario: Scenario, candidatePath: String) throws {
        let policy = try loadCandidate(candidatePath)
        let comparison = ScenarioComparison(scenario: scenario, candidate: policy)
        if json {
            print(Self.json(comparison, candidate: candidatePath).text)
        } else {
            print(Self.text(comparison, file: file, candidate: candidatePath))
        }
    }

    /// The candidate policy; when it is invalid, prints its problems and exits 2.
    func loadCandidate(_ path: String) throws -> Policy {
        do {
            return try PolicyLoader.load(path: path)
        } catch {
            if json {
                let errors = JSONValue.array(
                    error.diagnostics.map { .object([("message", .string($0.description))]) })
                print(JSONValue.object([("valid", .bool(false)), ("errors", errors)]).text)
            } else {
                var standardError = StandardError()
                print(error.description, to: &standardError)
            }
            throw ExitCode(2)
        }
    }

    /// Replays every file under its own policy and the candidate's, one file per core, and prints
    /// a line for each in the order given, then the totals. Exits 2 when a file or the candidate
    /// is invalid.
    func runComparisons(candidatePath: String) async throws {
        let policy = try loadCandidate(candidatePath)
        var outcomes: [(file: String, outcome: Result<ScenarioComparison, ScenarioError>)] = []
        await ScenarioBatch.run(
            files, width: Self.width,
            work: { Self.compare($0, candidate: policy) },
            report: { index, outcome in
                outcomes.append((files[index], outcome))
                if !json { print(Self.line(file: files[index], outcome)) }
            })
        let comparisons = outcomes.compactMap { try? $0.outcome.get() }
        let invalid = outcomes.count - comparisons.count
        let total = ComparisonTotals(comparisons)
        if json {
            let entries = outcomes.map { file, outcome -> JSONValue in
                switch outcome {
                case .success(let comparison):
                    guard case .object(let members) = Self.json(comparison, candidate: candidatePath) else {
                        return .null
                    }
                    return .object([("file", .string(file))] + members)
                case .failure(let error):
                    return .object([
                        ("file", .string(file)), ("valid", .bool(false)), ("errors", Self.invalidJSON(error)),
                    ])
                }
            }
            print(
                JSONValue.object([
                    ("valid", .bool(invalid == 0)), ("candidate", .string(candidatePath)),
                    ("scenarios", .array(entries)),
                    (
                        "total",
                        .object([
                            ("files", .number(Int64(comparisons.count))), ("invalid", .number(Int64(invalid))),
                            ("spared", .number(Int64(total.spared))),
                            ("killedInstead", .number(Int64(total.killedInstead))),
                            ("windowsGained", .number(Int64(total.windowsGained))),
                            ("windowsLost", .number(Int64(total.windowsLost))),
                            ("coldLaunches", .number(Int64(total.coldLaunches))),
                            ("candidateColdLaunches", .number(Int64(total.candidateColdLaunches))),
                        ])
                    ),
                ]
                ).text)
        } else {
            print(Self.totalLine(total, files: comparisons.count, invalid: invalid, candidate: candidatePath))
        }
        if invalid > 0 { throw ExitCode(2) }
    }

    /// Loads `file` and replays it under its own policy and `candidate`.
    static func compare(_ file: String, candidate: Policy) -> Result<ScenarioComparison, ScenarioError> {
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(path: file)
        } catch {
            return .failure(error)
        }
        return .success(ScenarioComparison(scenario: scenario, candidate: candidate))
    }

    /// What one comparison adds to the totals.
    struct ComparisonTotals {
        var spared = 0
        var killedInstead = 0
        var windowsGained = 0
        var windowsLost = 0
        /// Cold launches (opens of apps the device had killed) under each policy.
        var coldLaunches = 0
        var candidateColdLaunches = 0

        init(_ comparisons: [ScenarioComparison]) {
            for comparison in comparisons {
                coldLaunches += comparison.baseline.record.coldLaunches.count
                candidateColdLaunches += comparison.candidate.record.coldLaunches.count
                spared += comparison.sparedKills.count
                killedInstead += comparison.addedKills.count
                windowsGained += comparison.windowsGained
                windowsLost += comparison.windowsLost
            }
        }

        /// `1 app spared, 2 apps killed instead, 3 windows gained, 0 windows lost`
        var text: String {
            "\(Self.count(spared, "app")) spared, \(Self.count(killedInstead, "app")) killed instead, "
                + "\(Self.count(windowsGained, "window")) gained, \(Self.count(windowsLost, "window")) lost"
        }

        static func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }
    }

    /// A file's line: the apps the candidate spared and killed instead (named), and the windows
    /// it gained and lost; or that it would have done the same; or the problems of an invalid file.
    static func line(file: String, _ outcome: Result<ScenarioComparison, ScenarioError>) -> String {
        switch outcome {
        case .success(let comparison):
            guard comparison.differs else {
                return "\(file): the candidate would have killed, terminated and woken the same apps."
            }
            let totals = ComparisonTotals([comparison])
            var line = "\(file): \(ComparisonTotals.count(totals.spared, "app")) spared"
            if totals.spared > 0 { line += " (\(comparison.sparedKills.map(\.app).joined(separator: ", ")))" }
            line += ", \(ComparisonTotals.count(totals.killedInstead, "app")) killed instead"
            if totals.killedInstead > 0 { line += " (\(comparison.addedKills.map(\.app).joined(separator: ", ")))" }
            line +=
                ", \(ComparisonTotals.count(totals.windowsGained, "window")) gained, "
                + "\(ComparisonTotals.count(totals.windowsLost, "window")) lost"
            let terminations = (comparison.lostTerminations + comparison.gainedTerminations).count {
                !$0.hasSuffix(" \(TerminationReason.memoryPressure.rawValue)")
            }
            if terminations > 0 {
                line += "; \(terminations) other termination\(terminations == 1 ? " differs" : "s differ")"
            }
            if totals.coldLaunches != totals.candidateColdLaunches {
                line += "; cold launches \(totals.coldLaunches) → \(totals.candidateColdLaunches)"
            }
            return line + "."
        case .failure(let error):
            let count = error.diagnostics.count
            return "INVALID \(file): \(count) problem\(count == 1 ? "" : "s")\n" + indented(error.description)
        }
    }

    /// `Over 3 files under "candidate.toml": 2 apps spared, …; 1 file invalid.`
    static func totalLine(_ total: ComparisonTotals, files: Int, invalid: Int, candidate: String) -> String {
        var line = "Over \(files) file\(files == 1 ? "" : "s") under \"\(candidate)\": \(total.text)"
        if invalid > 0 { line += "; \(invalid) file\(invalid == 1 ? "" : "s") invalid" }
        return line + "."
    }

    /// The differences in words; kills are told as `explain` tells them.
    static func text(_ comparison: ScenarioComparison, file: String, candidate: String) -> String {
        let baseline = comparison.baseline.record
        let other = comparison.candidate.record
        var lines = ["Replayed \"\(file)\" under its own policy and under \"\(candidate)\"."]
        lines.append(
            "Memory kills: \(baseline.memoryKills.count) under its own policy (\(list(baseline.killOrder))), "
                + "\(other.memoryKills.count) under the candidate (\(list(other.killOrder))).")
        lines.append(
            "Cold launches (opens of apps the device had killed): \(baseline.coldLaunches.count) under its own "
                + "policy (\(list(baseline.coldLaunches))), \(other.coldLaunches.count) under the candidate "
                + "(\(list(other.coldLaunches))).")
        if !comparison.differs {
            lines.append("The candidate would have killed, terminated and woken the same apps.")
        }
        for kill in comparison.sparedKills {
            lines.append("Spared: \(kill.app), killed at \(TraceText.clock(kill.time)) under its own policy:")
            lines += Explanation.killSentences(kill.report).map { "  " + $0 }
        }
        for kill in comparison.addedKills {
            lines.append("Killed instead: \(kill.app), at \(TraceText.clock(kill.time)) under the candidate:")
            lines += Explanation.killSentences(kill.report).map { "  " + $0 }
        }
        for line in comparison.lostTerminations {
            lines.append("Termination only under its own policy: \(line).")
        }
        for line in comparison.gainedTerminations {
            lines.append("Termination only under the candidate: \(line).")
        }
        for change in comparison.windowChanges {
            lines.append(
                "Windows of \(change.app): fetch \(change.baselineFetches) → \(change.candidateFetches), "
                    + "push \(change.baselinePushes) → \(change.candidatePushes).")
        }
        lines.append("Time at each pressure level (its own policy → the candidate):")
        for time in comparison.levelTimes {
            lines.append(
                "  \(time.level.rawValue): \(DurationFormat.string(time.baseline)) → \(DurationFormat.string(time.candidate))"
            )
        }
        let refused = comparison.candidate.record.refusals
        if !refused.isEmpty {
            lines.append("Refused under the candidate: \(refused.count) steps or events, the first: ")
            lines[lines.count - 1] +=
                "\(TraceText.clock(refused[0].time)) \(refused[0].what): \(refused[0].error.message)"
        }
        return lines.joined(separator: "\n")
    }

    private static func list(_ apps: [String]) -> String {
        apps.isEmpty ? "none" : apps.joined(separator: ", ")
    }

    /// The differences as JSON, for scripts.
    static func json(_ comparison: ScenarioComparison, candidate: String) -> JSONValue {
        func kill(_ kill: SimulationRecord.MemoryKill) -> JSONValue {
            .object([
                ("app", .string(kill.app)), ("timeMillis", .number(kill.time.sinceOrigin.milliseconds)),
                ("band", .string(kill.report.band.description)), ("footprintBytes", .number(kill.report.footprint)),
                ("reclaimableBytes", .number(kill.report.reclaimable)),
                ("why", .array(Explanation.killSentences(kill.report).map(JSONValue.string))),
            ])
        }
        func strings(_ items: [String]) -> JSONValue { .array(items.map(JSONValue.string)) }
        return .object([
            ("valid", .bool(true)),
            ("candidate", .string(candidate)),
            ("differs", .bool(comparison.differs)),
            ("killOrder", strings(comparison.baseline.record.killOrder)),
            ("candidateKillOrder", strings(comparison.candidate.record.killOrder)),
            ("coldLaunches", strings(comparison.baseline.record.coldLaunches)),
            ("candidateColdLaunches", strings(comparison.candidate.record.coldLaunches)),
            ("spared", .array(comparison.sparedKills.map(kill))),
            ("killedInstead", .array(comparison.addedKills.map(kill))),
            ("terminationsLost", strings(comparison.lostTerminations)),
            ("terminationsGained", strings(comparison.gainedTerminations)),
            (
                "windows",
                .array(
                    comparison.windowChanges.map { change in
                        .object([
                            ("app", .string(change.app)),
                            ("fetches", .number(Int64(change.baselineFetches))),
                            ("candidateFetches", .number(Int64(change.candidateFetches))),
                            ("pushes", .number(Int64(change.baselinePushes))),
                            ("candidatePushes", .number(Int64(change.candidatePushes))),
                        ])
                    })
            ),
            (
                "levels",
                .array(
                    comparison.levelTimes.map { time in
                        .object([
                            ("level", .string(time.level.rawValue)),
                            ("millis", .number(time.baseline.milliseconds)),
                            ("candidateMillis", .number(time.candidate.milliseconds)),
                        ])
                    })
            ),
            ("candidateRefusals", .number(Int64(comparison.candidate.record.refusals.count))),
        ])
    }
}
