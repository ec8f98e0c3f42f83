public import WardenCore

/// What the daemon saves after every event so that a new daemon can re-adopt the apps: the
/// core's checkpoint and the running apps with their processes and groups.
public struct WardenCheckpoint: Codable, Sendable, Equatable {
    public var lifecycle: LifecycleCheckpoint
    /// The running apps, by name.
    public var running: [RunningAppRecord]
    /// Each app's device token, in checkpoints written before the core's push bookkeeping kept
    /// the tokens; read from such checkpoints, never written.
    public var deviceTokens: [String: String]? = nil
}
