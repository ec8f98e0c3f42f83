/// The CPU class of rule 13: the foreground is served first, background apps get what it
/// leaves. Suspended apps are frozen and run no code; they keep the background class, so a thaw
/// into a fetch or push window needs no change.
///
/// A background app holding an activity (rule 14) has a class of its own: what it does is
/// heard or seen now (sound that must not stutter, a route that must follow the car), so it is
/// given a steady share beside a busy foreground, which the background class's weight of 1
/// would starve; the foreground's weight stays a hundred times larger.
public enum CPUClass: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Inactive or active (launching included).
    case foreground
    /// Background (grace, tasks, fetch and push windows) and suspended.
    case background
    /// Background holding an activity (rule 14).
    case activity

    /// The class of an app in `state`; nil for an app that does not run.
    public init?(state: AppState) {
        switch state {
        case .notRunning: return nil
        case .inactive, .active: self = .foreground
        case .background, .suspended: self = .background
        }
    }

    /// The class of an app in `state` that holds an activity or not: in background, an activity
    /// gives it the activity class; nil for an app that does not run.
    public init?(state: AppState, holdsActivity: Bool) {
        if state == .background && holdsActivity {
            self = .activity
        } else {
            self.init(state: state)
        }
    }

    public var description: String { rawValue }
}
