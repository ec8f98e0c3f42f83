/// A timer the core arms and later receives back as `LifecycleEvent.timerFired`.
public struct TimerID: Sendable, Hashable, CustomStringConvertible {
    public var app: String
    public var kind: Kind

    public init(app: String, kind: Kind) {
        self.app = app
        self.kind = kind
    }

    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Background grace ended: suspend if nothing keeps the app awake (rule 1).
        case backgroundGrace
        /// Time for the expiration call of open tasks (rule 2).
        case taskExpirationWarning
        /// The background-task budget is spent (rule 2).
        case taskBudget
        /// The fetch window ended without `complete-fetch` (rule 4).
        case fetchWindow
        /// The push window ended without `complete-push` (rule 5).
        case pushWindow
        /// The accessory window ended without `complete-accessory` (rule 14).
        case accessoryWindow
        /// A background fetch is due (rule 4).
        case fetchWake
        /// A push slot frees up, or memory is tried again, and a held push may be delivered (rule 5).
        case pushSlot
        /// A `readiness = "notify"` app did not call `ready` in time (rule 12).
        case launchTimeout
        /// SIGTERM was sent and the termination grace ended (rule 11).
        case terminationGrace
        /// The status watchdog's interval ended (§1.5).
        case watchdog
        /// A window of the background CPU budget ended: measure the app's CPU time (rule 13).
        case cpuBudget
        /// An activity ran unattended for the policy's `activity_limit` (rule 14).
        case activityLimit
    }

    public var description: String { "\(app).\(kind.rawValue)" }
}
