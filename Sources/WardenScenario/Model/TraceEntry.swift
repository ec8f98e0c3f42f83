public import WardenCore

/// One line of a simulation's trace: a step, an input the simulated runtime produced, a
/// decision or effect of the core, a refusal, or a checked expectation.
public struct TraceEntry: Sendable, Equatable {
    /// When it happened, in virtual time.
    public var time: Instant
    public var kind: Kind

    public init(time: Instant, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        /// A scenario step began.
        case step(ScenarioStep)
        /// An input the simulated runtime fed to the core (a timer, a process exit, an app's
        /// completion, a memory sample, a scan result).
        case event(LifecycleEvent)
        /// An effect the core decided on (journal records carry the decisions and their reasons).
        case action(LifecycleAction)
        /// The core (or the simulated runtime) refused the step or event, with the sentence why.
        case refused(what: String, error: LifecycleError)
        /// An `at` expectation was checked: the expected state and the state found.
        case check(StateExpectation, actual: AppState?)
    }
}
