public import WardenCore

/// What the daemon saves after every event so that a new daemon can re-adopt the apps: the
/// core's checkpoint and the running apps with their processes and groups.
public struct WardenCheckpoint: Codable, Sendable, Equatable {
    /// One running app's process and group.
    public struct RunningApp: Codable, Sendable, Equatable {
        public var app: String
        public var launch: Int
        public var pid: Int32
        public var unifiedPath: String?
        public var memoryPath: String?
        public var freezerPath: String?
        public var v1ProcsFiles: [String]
        /// When it was launched, wall-clock milliseconds since the epoch.
        public var startedWallMillis: Int64?
    }

    public var lifecycle: LifecycleCheckpoint
    public var running: [RunningApp]
    /// Each app's current device token.
    public var deviceTokens: [String: String]?
}
