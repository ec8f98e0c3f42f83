public import WardenCore
public import WardenScenario

/// A scenario replayed twice, under its own policy and under a candidate, and what would have
/// been different (`appwarden simulate --compare`): the apps killed or spared, the terminations,
/// the fetch and push windows gained or lost, the time spent at each pressure level.
///
/// The candidate replaces the scenario's policy whole (its global settings and its apps' policy
/// keys); the apps keep their simulation facts, and the steps are the same. The candidate's run
/// checks no expectations: they describe the scenario's own policy.
public struct ScenarioComparison: Sendable {
    /// The run under the scenario's own policy.
    public var baseline: SimulationResult
    /// The run under the candidate policy.
    public var candidate: SimulationResult

    /// Replays `scenario` under its own policy and under `policy`.
    public init(scenario: Scenario, candidate policy: Policy) {
        var baselineRun = Simulator(scenario: scenario, tracing: false)
        baseline = baselineRun.run()
        var other = scenario
        other.policy = policy
        other.expectations = ScenarioExpectations()
        var candidateRun = Simulator(scenario: other, tracing: false)
        candidate = candidateRun.run()
    }

    /// The memory kills of the baseline whose app the candidate did not kill for memory (spared),
    /// and those of the candidate whose app the baseline did not (killed instead), each matched
    /// app by app in order: an app killed twice in one run and once in the other counts once.
    public var sparedKills: [SimulationRecord.MemoryKill] {
        Self.unmatched(baseline.record.memoryKills, against: candidate.record.memoryKills)
    }

    /// The memory kills of the candidate that the baseline did not make.
    public var addedKills: [SimulationRecord.MemoryKill] {
        Self.unmatched(candidate.record.memoryKills, against: baseline.record.memoryKills)
    }

    /// Terminations (`"APP reason"`) of the baseline that the candidate does not have.
    public var lostTerminations: [String] {
        Self.unmatched(baseline.record.terminationLines, against: candidate.record.terminationLines)
    }

    /// Terminations of the candidate that the baseline does not have.
    public var gainedTerminations: [String] {
        Self.unmatched(candidate.record.terminationLines, against: baseline.record.terminationLines)
    }

    /// For every app whose fetch or push windows differ: how many each run opened.
    public var windowChanges: [WindowChange] {
        let apps = Set((baseline.record.windows + candidate.record.windows).map(\.app)).sorted()
        return apps.compactMap { app in
            func count(_ record: SimulationRecord, _ kind: SimulationRecord.Window.Kind) -> Int {
                record.windows.count { $0.app == app && $0.kind == kind }
            }
            let change = WindowChange(
                app: app, baselineFetches: count(baseline.record, .fetch),
                candidateFetches: count(candidate.record, .fetch), baselinePushes: count(baseline.record, .push),
                candidatePushes: count(candidate.record, .push))
            return change.baselineFetches == change.candidateFetches && change.baselinePushes == change.candidatePushes
                ? nil : change
        }
    }

    /// How many fetch and push windows the candidate opened that the baseline did not, summed over
    /// the apps (an app with 2 fetch windows under its own policy and 3 under the candidate gains 1).
    public var windowsGained: Int {
        windowChanges.reduce(0) { total, change in
            total + max(0, change.candidateFetches - change.baselineFetches)
                + max(0, change.candidatePushes - change.baselinePushes)
        }
    }

    /// How many fetch and push windows the baseline opened that the candidate did not.
    public var windowsLost: Int {
        windowChanges.reduce(0) { total, change in
            total + max(0, change.baselineFetches - change.candidateFetches)
                + max(0, change.baselinePushes - change.candidatePushes)
        }
    }

    /// How long each run spent at each pressure level, from the start to the end of the run.
    public var levelTimes: [LevelTime] {
        let baselineTimes = Self.timeAtLevels(baseline)
        let candidateTimes = Self.timeAtLevels(candidate)
        return PressureLevel.allCases.map { level in
            LevelTime(level: level, baseline: baselineTimes[level] ?? .zero, candidate: candidateTimes[level] ?? .zero)
        }
    }

    /// Whether the candidate's run differs from the baseline's in kills, terminations or windows.
    public var differs: Bool {
        !sparedKills.isEmpty || !addedKills.isEmpty || !lostTerminations.isEmpty || !gainedTerminations.isEmpty
            || !windowChanges.isEmpty
    }

    /// The fetch and push windows of one app in both runs.
    public struct WindowChange: Sendable, Equatable {
        public var app: String
        public var baselineFetches: Int
        public var candidateFetches: Int
        public var baselinePushes: Int
        public var candidatePushes: Int
    }

    /// The time one pressure level lasted in both runs.
    public struct LevelTime: Sendable, Equatable {
        public var level: PressureLevel
        public var baseline: Duration
        public var candidate: Duration
    }

    static func timeAtLevels(_ result: SimulationResult) -> [PressureLevel: Duration] {
        var times: [PressureLevel: Duration] = [:]
        var level = PressureLevel.normal
        var since = Instant.zero
        for change in result.record.levelChanges {
            times[level, default: .zero] += change.time - since
            level = change.level
            since = change.time
        }
        times[level, default: .zero] += max(.zero, result.endTime - since)
        return times
    }

    static func unmatched(
        _ kills: [SimulationRecord.MemoryKill], against others: [SimulationRecord.MemoryKill]
    ) -> [SimulationRecord.MemoryKill] {
        var remaining = others.map(\.app)
        return kills.filter { kill in
            guard let index = remaining.firstIndex(of: kill.app) else { return true }
            remaining.remove(at: index)
            return false
        }
    }

    static func unmatched(_ lines: [String], against others: [String]) -> [String] {
        var remaining = others
        return lines.filter { line in
            guard let index = remaining.firstIndex(of: line) else { return true }
            remaining.remove(at: index)
            return false
        }
    }
}
