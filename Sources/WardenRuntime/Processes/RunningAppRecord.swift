public import WardenCgroup

/// One app the daemon started (or re-adopted) and has not seen stop: its launch, main process
/// and group. The daemon keeps one per running app and saves them in its checkpoint, so that a
/// restarted daemon re-adopts the processes instead of launching the apps a second time.
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
    /// The v1 `cgroup.procs` files of the group.
    public var v1ProcsFiles: [String]
    /// The app's group in the v1 pids hierarchy, if its task limit lives there.
    public var pidsPath: String?
    /// When the process was started, wall-clock ms since the epoch.
    public var startedWallMillis: Int64?

    public init(app: String, launch: Int, pid: Int32, group: AppGroup?, startedWallMillis: Int64) {
        self.app = app
        self.launch = launch
        self.pid = pid
        self.unifiedPath = group?.unifiedPath
        self.memoryPath = group?.memoryPath
        self.freezerPath = group?.freezerPath
        self.v1ProcsFiles = group?.v1ProcsFiles ?? []
        self.pidsPath = group?.pidsPath
        self.startedWallMillis = startedWallMillis
    }

    /// The app's group as recorded; nil when it was launched without one.
    public var group: AppGroup? {
        guard unifiedPath != nil || memoryPath != nil || freezerPath != nil || pidsPath != nil else { return nil }
        return AppGroup(
            name: app, unifiedPath: unifiedPath, memoryPath: memoryPath, freezerPath: freezerPath,
            v1ProcsFiles: v1ProcsFiles, pidsPath: pidsPath)
    }
}
