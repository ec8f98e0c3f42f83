/// The CPU class of rule 13: the foreground is served first, background apps get what it
/// leaves. Suspended apps are frozen and run no code; they keep the background class, so a thaw
/// into a fetch or push window needs no change.
public enum CPUClass: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Inactive or active (launching included).
    case foreground
    /// Background (grace, tasks, fetch and push windows) and suspended.
    case background

    /// The class of an app in `state`; nil for an app that does not run.
    public init?(state: AppState) {
        switch state {
        case .notRunning: return nil
        case .inactive, .active: self = .foreground
        case .background, .suspended: self = .background
        }
    }

    public var description: String { rawValue }
}
