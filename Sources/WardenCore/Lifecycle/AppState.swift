/// The lifecycle state of one app (DESIGN §1).
public enum AppState: String, Sendable, Hashable, CaseIterable, Codable {
    case notRunning
    /// In the foreground, not receiving events (launching, or covered by an overlay).
    case inactive
    /// In the foreground and receiving events.
    case active
    /// Running, out of sight.
    case background
    /// Frozen with the cgroup freezer, in memory, runs no code.
    case suspended

    /// The coarse status that observers see.
    public var status: AppStatus {
        switch self {
        case .notRunning: .unknown
        case .inactive, .active: .foreground
        case .background, .suspended: .background
        }
    }
}
