public import WardenCore

/// The `[expect]` table: what must hold at the end of a run. Every key is optional; nil means
/// "not checked".
public struct ScenarioExpectations: Sendable, Equatable {
    /// `kill_order`: the apps terminated for memory pressure, in order.
    public var killOrder: [String]?
    /// `terminations`: every termination as `"APP reason"`, in order.
    public var terminations: [String]?
    /// `analytics`: every analytics event except `$AppTerminated`, as `"$Event APP"`, in order.
    public var analytics: [String]?
    /// `status`: every publication of the status notifier, as `"APP status"`, in order.
    public var status: [String]?
    /// `launches`: every process launch as `"APP reason"`, with ` restore` when the launch is told
    /// to restore its preserved state (`"mail user restore"`), in order.
    public var launches: [String]?
    /// `refused`: every refused step or event as `"TIME STEP CODE"`, such as
    /// `"30s open mail conflict"`, in order.
    public var refused: [String]?
    /// `at`: states at given times, each checked after everything due at its time has run.
    public var states: [StateExpectation]

    public init(
        killOrder: [String]? = nil,
        terminations: [String]? = nil,
        analytics: [String]? = nil,
        status: [String]? = nil,
        launches: [String]? = nil,
        refused: [String]? = nil,
        states: [StateExpectation] = []
    ) {
        self.killOrder = killOrder
        self.terminations = terminations
        self.analytics = analytics
        self.status = status
        self.launches = launches
        self.refused = refused
        self.states = states
    }
}

/// One entry of `at`: `"TIME APP STATE"`.
public struct StateExpectation: Sendable, Equatable {
    public var time: Instant
    public var app: String
    public var state: AppState
    /// The line of the scenario file, if the expectation comes from one.
    public var line: Int?

    public init(time: Instant, app: String, state: AppState, line: Int? = nil) {
        self.time = time
        self.app = app
        self.state = state
        self.line = line
    }

    /// `9s mail suspended`
    public var text: String { "\(TraceText.clock(time)) \(app) \(state.rawValue)" }
}
