/// Kill-order bands of rule 9, first killed first.
public enum KillBand: Int, Sendable, Hashable, CaseIterable, Comparable, Codable, CustomStringConvertible {
    /// An app whose footprint is above its fair share (`fair_share`), whatever its state: the
    /// culprit goes first.
    case overFairShare = 0
    case suspended = 1
    case idleBackground = 2
    case backgroundWindow = 3
    case backgroundTask = 4
    /// A background app holding a continuous activity (rule 14): audio, location or long work
    /// the person is aware of, killed after every other background app and before the foreground.
    case activity = 5
    case foreground = 6

    public static func < (lhs: KillBand, rhs: KillBand) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The band of an app in `state`, from the facts that decide it: whether its footprint is
    /// above its fair share, its held activities, its open background tasks and its open fetch or
    /// push windows. The
    /// one place rule 9's bands are decided; the record, the OOM score (rule 10) and the killer
    /// all read it.
    @inline(__always)
    public init(
        state: AppState, hasTasks: Bool, hasOpenWindow: Bool, overFairShare: Bool = false, holdsActivity: Bool = false
    ) {
        if overFairShare && state != .notRunning {
            self = .overFairShare
            return
        }
        switch state {
        case .notRunning, .suspended: self = .suspended
        case .inactive, .active: self = .foreground
        case .background:
            if holdsActivity {
                self = .activity
            } else if hasTasks {
                self = .backgroundTask
            } else if hasOpenWindow {
                self = .backgroundWindow
            } else {
                self = .idleBackground
            }
        }
    }

    public var description: String {
        switch self {
        case .overFairShare: "over-fair-share"
        case .suspended: "suspended"
        case .idleBackground: "idle-background"
        case .backgroundWindow: "background-window"
        case .backgroundTask: "background-task"
        case .activity: "activity"
        case .foreground: "foreground"
        }
    }
}
