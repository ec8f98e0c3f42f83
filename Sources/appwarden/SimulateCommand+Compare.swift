import ArgumentParser
import WardenAPI
import WardenCore
import WardenPolicy
import WardenSimulator

/// `appwarden simulate --compare CANDIDATE FILE`: what another policy would have done.
extension SimulateCommand {
    /// Replays `scenario` under its policy and the candidate's, and prints the differences.
    func runComparison(_ scenario: Scenario, candidatePath: String) throws {
        let policy: Policy
        do {
            policy = try PolicyLoader.load(path: candidatePath)
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
        let comparison = ScenarioComparison(scenario: scenario, candidate: policy)
        if json {
            print(Self.json(comparison, candidate: candidatePath).text)
        } else {
            print(Self.text(comparison, file: file, candidate: candidatePath))
        }
    }

    /// The differences in words; kills are told as `explain` tells them.
    static func text(_ comparison: ScenarioComparison, file: String, candidate: String) -> String {
        let baseline = comparison.baseline.record
        let other = comparison.candidate.record
        var lines = ["Replayed \"\(file)\" under its own policy and under \"\(candidate)\"."]
        lines.append(
            "Memory kills: \(baseline.memoryKills.count) under its own policy (\(list(baseline.killOrder))), "
                + "\(other.memoryKills.count) under the candidate (\(list(other.killOrder))).")
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
