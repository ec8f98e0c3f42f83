public import WardenCore

/// A scenario: a policy, simulated apps, timed steps and expectations (DESIGN §3).
///
/// Load one with `ScenarioLoader`, or build one in code and hand it to `Simulator`.
public struct Scenario: Sendable {
    /// `scenario.name`
    public var name: String
    /// The file the scenario was loaded from, as named when loading (nil when built in code).
    public var file: String?
    /// The composed policy: the base policy file, `[policy]` overrides and `[apps]`.
    public var policy: Policy
    /// Device memory in bytes (`memory`); setting it enables the memory model.
    public var memory: Int64?
    /// Memory used by things outside the apps (`reserved`, default 0).
    public var reserved: Int64
    /// Swap in bytes (`swap`, under the memory model); nil for none.
    public var swap: Int64?
    /// How many bytes of swapped memory one byte of RAM holds, for swap compressed in RAM
    /// (`zram_ratio`); nil for swap on a disk.
    public var zramRatio: Double?
    /// When the run ends (`until`); nil: the last step or `at` time, whichever is later.
    public var until: Instant?
    /// The steps, in file order (never decreasing in time).
    public var steps: [ScenarioStep]
    /// Simulation facts per app; apps without an entry use the defaults.
    public var facts: [String: AppFacts]
    /// `[expect]`
    public var expectations: ScenarioExpectations

    public init(
        name: String,
        policy: Policy,
        file: String? = nil,
        memory: Int64? = nil,
        reserved: Int64 = 0,
        swap: Int64? = nil,
        zramRatio: Double? = nil,
        until: Instant? = nil,
        steps: [ScenarioStep] = [],
        facts: [String: AppFacts] = [:],
        expectations: ScenarioExpectations = ScenarioExpectations()
    ) {
        self.name = name
        self.policy = policy
        self.file = file
        self.memory = memory
        self.reserved = reserved
        self.swap = swap
        self.zramRatio = zramRatio
        self.until = until
        self.steps = steps
        self.facts = facts
        self.expectations = expectations
    }

    /// When the run ends: `until`, or the last step or `at` time, whichever is later.
    public var endTime: Instant {
        if let until { return until }
        let lastStep = steps.last?.time ?? .zero
        let lastCheck = expectations.states.map(\.time).max() ?? .zero
        return max(lastStep, lastCheck)
    }

    /// What `swapped` bytes in the scenario's swap take of RAM: 1/`zram_ratio` of them, nothing
    /// for swap on a disk (or no swap declared).
    public func swappedInRAM(_ swapped: Int64) -> Int64 {
        zramRatio.map { Int64(Double(swapped) / $0) } ?? 0
    }

    /// One thing a replay does, in its order (`timeline`).
    public enum TimelineItem: Sendable {
        /// The step at this index of `steps`.
        case step(Int)
        /// An `at` check, made after everything due at its time.
        case check(StateExpectation)
    }

    /// The order a replay follows: the steps in order, each `at` check before the first step
    /// later than it (so after every step at its own time), the checks after the last step at
    /// the end; checks of the same time keep the order they were written in.
    public var timeline: [TimelineItem] {
        let checks = expectations.states.enumerated().sorted {
            ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
        }.map(\.element)
        var items: [TimelineItem] = []
        items.reserveCapacity(steps.count + checks.count)
        var nextCheck = 0
        for (index, step) in steps.enumerated() {
            while nextCheck < checks.count, checks[nextCheck].time < step.time {
                items.append(.check(checks[nextCheck]))
                nextCheck += 1
            }
            items.append(.step(index))
        }
        items += checks[nextCheck...].map(TimelineItem.check)
        return items
    }

    /// The simulation facts of `app` (the defaults when the scenario gives none).
    public func facts(of app: String) -> AppFacts {
        facts[app] ?? AppFacts()
    }
}
