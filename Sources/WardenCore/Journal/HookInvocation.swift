/// One run of an operator hook (`[hooks]`), as the core decides it: which hook, the command,
/// and the facts of the moment that the command receives in its environment.
public struct HookInvocation: Sendable, Equatable {
    /// Which hook runs.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `on_kill`: the core killed an app.
        case kill
        /// `on_pressure`: the memory pressure level changed.
        case pressure

        /// The policy key that names the hook's command.
        public var policyKey: String {
            switch self {
            case .kill: "on_kill"
            case .pressure: "on_pressure"
            }
        }
    }

    public var kind: Kind
    /// The command, run with `/bin/sh -c`.
    public var command: String
    /// How long it may run before its process group is killed.
    public var timeout: Duration
    /// The app killed (`kill` only).
    public var app: String?
    /// Why it was killed (`kill` only).
    public var reason: TerminationReason?
    /// What the killed app's group held, in bytes, at the last measurement (`kill` only).
    public var footprint: Int64?
    /// The killed app's band (`kill` only).
    public var band: KillBand?
    /// The pressure level at the moment (after the change, for `pressure`).
    public var level: PressureLevel
    /// The level before the change (`pressure` only).
    public var previousLevel: PressureLevel?
    /// Available memory in bytes, when the change came from a memory sample.
    public var available: Int64?

    public init(
        kind: Kind, command: String, timeout: Duration, app: String? = nil, reason: TerminationReason? = nil,
        footprint: Int64? = nil, band: KillBand? = nil, level: PressureLevel, previousLevel: PressureLevel? = nil,
        available: Int64? = nil
    ) {
        self.kind = kind
        self.command = command
        self.timeout = timeout
        self.app = app
        self.reason = reason
        self.footprint = footprint
        self.band = band
        self.level = level
        self.previousLevel = previousLevel
        self.available = available
    }

    /// The variables the command receives: `APPWARDEN_HOOK` (`kill` or `pressure`),
    /// `APPWARDEN_LEVEL`, and where they apply `APPWARDEN_APP`, `APPWARDEN_REASON`,
    /// `APPWARDEN_FOOTPRINT` (bytes), `APPWARDEN_BAND`, `APPWARDEN_PREVIOUS_LEVEL` and
    /// `APPWARDEN_AVAILABLE` (bytes).
    public var environment: [String: String] {
        var variables = ["APPWARDEN_HOOK": kind.rawValue, "APPWARDEN_LEVEL": level.rawValue]
        variables["APPWARDEN_APP"] = app
        variables["APPWARDEN_REASON"] = reason?.rawValue
        variables["APPWARDEN_FOOTPRINT"] = footprint.map(String.init)
        variables["APPWARDEN_BAND"] = band.map { "\($0)" }
        variables["APPWARDEN_PREVIOUS_LEVEL"] = previousLevel?.rawValue
        variables["APPWARDEN_AVAILABLE"] = available.map(String.init)
        return variables
    }
}
