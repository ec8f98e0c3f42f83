public import WardenAPI
public import WardenCore

/// What the daemon saves after every event so that a new daemon can re-adopt the apps: the
/// core's checkpoint, the running apps with their processes and groups, and the last kills.
public struct WardenCheckpoint: Codable, Sendable, Equatable {
    public var lifecycle: LifecycleCheckpoint
    /// The running apps, by name.
    public var running: [RunningAppRecord]
    /// Each app's device token, in checkpoints written before the core's push bookkeeping kept
    /// the tokens; read from such checkpoints, never written.
    public var deviceTokens: [String: String]? = nil
    /// The last kills, oldest first, for `GET /v1/device` and `top` after a restart; absent from
    /// checkpoints written before they were kept, and when there were none.
    public var recentKills: [KillInfo]? = nil
    /// The boot clock when the checkpoint was saved, which measures how long no daemon ran
    /// where the wall clock may have been set meanwhile; absent from checkpoints written before it
    /// was kept, and where the device has no boot clock.
    public var bootTime: WardenClock.BootTime? = nil
}
