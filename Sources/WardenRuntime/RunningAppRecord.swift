/// One app the daemon started and has not seen stop, kept so that a restarted daemon re-adopts
/// it instead of launching it a second time.
public struct RunningAppRecord: Codable, Sendable, Equatable {
    public var app: String
    /// The core's launch number.
    public var launch: Int
    /// The app's main process.
    public var pid: Int32
    /// The app's group in the cgroup2 hierarchy, if it has one there.
    public var unifiedPath: String?
    /// The app's group in the v1 memory hierarchy, if it has one there.
    public var memoryPath: String?
    /// The app's group in the v1 freezer hierarchy, if it has one there.
    public var freezerPath: String?
    /// The lifecycle state (`AppState` raw value) when last recorded.
    public var state: String
    /// When the process was started, wall-clock ms since the epoch.
    public var startedWallMillis: Int64

    public init(
        app: String, launch: Int, pid: Int32, unifiedPath: String? = nil, memoryPath: String? = nil,
        freezerPath: String? = nil, state: String, startedWallMillis: Int64
    ) {
        self.app = app
        self.launch = launch
        self.pid = pid
        self.unifiedPath = unifiedPath
        self.memoryPath = memoryPath
        self.freezerPath = freezerPath
        self.state = state
        self.startedWallMillis = startedWallMillis
    }
}
