/// The deadline of each of an app's timers, one optional instant per `TimerID.Kind`, stored
/// inline so that an app's record holds no array for them.
struct TimerDeadlines: Sendable, Equatable, Codable {
    private var backgroundGrace: Instant?
    private var taskExpirationWarning: Instant?
    private var taskBudget: Instant?
    private var fetchWindow: Instant?
    private var pushWindow: Instant?
    private var accessoryWindow: Instant?
    private var fetchWake: Instant?
    private var pushSlot: Instant?
    private var launchTimeout: Instant?
    private var terminationGrace: Instant?
    private var watchdog: Instant?
    private var cpuBudget: Instant?
    private var activityLimit: Instant?

    subscript(kind: TimerID.Kind) -> Instant? {
        get {
            switch kind {
            case .backgroundGrace: backgroundGrace
            case .taskExpirationWarning: taskExpirationWarning
            case .taskBudget: taskBudget
            case .fetchWindow: fetchWindow
            case .pushWindow: pushWindow
            case .accessoryWindow: accessoryWindow
            case .fetchWake: fetchWake
            case .pushSlot: pushSlot
            case .launchTimeout: launchTimeout
            case .terminationGrace: terminationGrace
            case .watchdog: watchdog
            case .cpuBudget: cpuBudget
            case .activityLimit: activityLimit
            }
        }
        set {
            switch kind {
            case .backgroundGrace: backgroundGrace = newValue
            case .taskExpirationWarning: taskExpirationWarning = newValue
            case .taskBudget: taskBudget = newValue
            case .fetchWindow: fetchWindow = newValue
            case .pushWindow: pushWindow = newValue
            case .accessoryWindow: accessoryWindow = newValue
            case .fetchWake: fetchWake = newValue
            case .pushSlot: pushSlot = newValue
            case .launchTimeout: launchTimeout = newValue
            case .terminationGrace: terminationGrace = newValue
            case .watchdog: watchdog = newValue
            case .cpuBudget: cpuBudget = newValue
            case .activityLimit: activityLimit = newValue
            }
        }
    }

    /// Moves every armed deadline by `offset`.
    mutating func shift(by offset: Duration) {
        for kind in TimerID.Kind.allCases {
            if let deadline = self[kind] { self[kind] = deadline + offset }
        }
    }
}
