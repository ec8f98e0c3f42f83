public import WardenCore
public import WardenScenario

/// The outcome of a run: what happened and whether every expectation holds.
public struct SimulationResult: Sendable {
    public var scenario: Scenario
    public var record: SimulationRecord
    public var trace: [TraceEntry]
    /// The virtual time at which the run ended.
    public var endTime: Instant
    /// How many events were handed to the core.
    public var eventCount: Int

    public init(
        scenario: Scenario, record: SimulationRecord, trace: [TraceEntry], endTime: Instant, eventCount: Int = 0
    ) {
        self.scenario = scenario
        self.record = record
        self.trace = trace
        self.endTime = endTime
        self.eventCount = eventCount
    }

    /// One verdict per list key the scenario sets, then one per `at` entry, in order of time.
    public var checks: [ExpectationCheck] {
        let expectations = scenario.expectations
        var checks: [ExpectationCheck] = []
        if let expected = expectations.killOrder {
            checks.append(ExpectationCheck(key: "kill_order", expected: expected, actual: record.killOrder))
        }
        if let expected = expectations.terminations {
            checks.append(
                ExpectationCheck(key: "terminations", expected: expected, actual: record.terminationLines))
        }
        if let expected = expectations.analytics {
            checks.append(ExpectationCheck(key: "analytics", expected: expected, actual: record.analyticsLines))
        }
        if let expected = expectations.status {
            checks.append(ExpectationCheck(key: "status", expected: expected, actual: record.statusLines))
        }
        if let expected = expectations.launches {
            checks.append(ExpectationCheck(key: "launches", expected: expected, actual: record.launchLines))
        }
        if let expected = expectations.refused {
            checks.append(ExpectationCheck(key: "refused", expected: expected, actual: record.refusalLines))
        }
        for check in record.stateChecks {
            checks.append(
                ExpectationCheck(
                    key: "at", expected: [check.expectation.text],
                    actual: [check.holds ? check.expectation.text : (check.actual?.rawValue ?? "unknown")]))
        }
        return checks
    }

    /// Whether every expectation holds.
    public var passed: Bool { checks.allSatisfy(\.holds) }

    /// The failing expectations' diffs, one block per expectation; empty when all hold.
    public var diff: String {
        checks.filter { !$0.holds }.map(\.diff).joined(separator: "\n")
    }

    /// The trace as readable lines (empty when the run was not traced).
    public var traceText: String {
        TraceText.render(trace)
    }

    /// The verdict line: `PASS name (5 expectations)` or `FAIL name: 2 of 5 expectations do not hold`.
    public var summary: String {
        let all = checks
        let failing = all.filter { !$0.holds }.count
        if all.isEmpty {
            return "PASS \(scenario.name) (no expectations)"
        }
        if failing == 0 {
            return "PASS \(scenario.name) (\(all.count) expectation\(all.count == 1 ? " holds" : "s hold"))"
        }
        return "FAIL \(scenario.name): \(failing) of \(all.count) expectations do not hold"
    }
}
