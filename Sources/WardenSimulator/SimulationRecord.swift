public import WardenCore
public import WardenScenario

/// What a run produced that expectations compare: terminations, analytics events, status
/// publications, refusals and state checks, in the order they happened.
public struct SimulationRecord: Sendable, Equatable {
    public struct Termination: Sendable, Equatable {
        public var time: Instant
        public var app: String
        public var reason: TerminationReason
    }

    public struct Analytics: Sendable, Equatable {
        public var time: Instant
        public var app: String
        public var event: AnalyticsEvent
    }

    public struct Publication: Sendable, Equatable {
        public var time: Instant
        public var app: String
        public var status: AppStatus
    }

    public struct Launch: Sendable, Equatable {
        public var time: Instant
        public var app: String
        public var launch: Int
        public var reason: LaunchReason
        /// Whether the launch was told to restore its preserved state.
        public var restore: Bool
    }

    public struct Refusal: Sendable, Equatable {
        public var time: Instant
        /// The step or event that was refused, as written.
        public var what: String
        public var error: LifecycleError
    }

    public struct StateCheck: Sendable, Equatable {
        public var expectation: StateExpectation
        /// The state found (nil when the core does not know the app).
        public var actual: AppState?

        public var holds: Bool { actual == expectation.state }
    }

    /// Every termination (`$AppTerminated`), in order.
    /// A choice of the memory killer, with the figures and the candidates it passed over.
    public struct MemoryKill: Sendable, Equatable {
        public var time: Instant
        public var app: String
        public var report: MemoryKillReport
    }

    /// A change of the pressure level.
    public struct LevelChange: Sendable, Equatable {
        public var time: Instant
        public var level: PressureLevel
    }

    /// A fetch or push window opened for an app (a wake, passive launch or not).
    public struct Window: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable {
            case fetch, push, accessory
        }

        public var time: Instant
        public var app: String
        public var kind: Kind
    }

    public internal(set) var memoryKills: [MemoryKill] = []
    public internal(set) var levelChanges: [LevelChange] = []
    public internal(set) var windows: [Window] = []
    public internal(set) var terminations: [Termination] = []
    /// Every analytics event except `$AppTerminated`, in order.
    public internal(set) var analytics: [Analytics] = []
    /// Every publication of the status notifier, in order.
    public internal(set) var publications: [Publication] = []
    /// Every process launch (`spawn`), in order.
    public internal(set) var launches: [Launch] = []
    /// Every refused step or event, in order.
    public internal(set) var refusals: [Refusal] = []
    /// Every `at` expectation checked so far, in order of time.
    public internal(set) var stateChecks: [StateCheck] = []

    public init() {}

    /// The apps terminated for memory pressure, in order.
    public var killOrder: [String] {
        terminations.filter { $0.reason == .memoryPressure }.map(\.app)
    }

    /// Terminations as `[expect] terminations` writes them: `"mail memoryPressure"`.
    public var terminationLines: [String] {
        terminations.map { "\($0.app) \($0.reason.rawValue)" }
    }

    /// The apps the user opened after the device had killed them (cold launches: a `$AppStart`
    /// after a kill), in order, an app once per cold launch.
    public var coldLaunches: [String] {
        analytics.compactMap { analytics in
            if case .appStart(_, _, _?) = analytics.event { analytics.app } else { nil }
        }
    }

    /// Analytics events as `[expect] analytics` writes them: `"$AppStart mail"`.
    public var analyticsLines: [String] {
        analytics.map { "\($0.event.name) \($0.app)" }
    }

    /// Launches as `[expect] launches` writes them: `"mail user"`, `"mail user restore"`.
    public var launchLines: [String] {
        launches.map { "\($0.app) \($0.reason.rawValue)\($0.restore ? " restore" : "")" }
    }

    /// Refusals as `[expect] refused` writes them: the time, the step without its time, and the
    /// error's code, such as `"30s open mail conflict"`.
    public var refusalLines: [String] {
        refusals.map { TraceText.refusalLine($0.what, at: $0.time, code: $0.error.code.rawValue) }
    }

    /// Status publications as `[expect] status` writes them: `"mail background"`.
    public var statusLines: [String] {
        publications.map { "\($0.app) \($0.status)" }
    }
}
