/// Why a process was launched (`APPWARDEN_LAUNCH_REASON`).
public enum LaunchReason: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user opened the app.
    case user
    /// A background fetch woke it (passive launch).
    case fetch
    /// A silent push woke it (passive launch).
    case push
    /// An accessory the app handles was plugged in or removed (passive launch, rule 14).
    case accessory
}
