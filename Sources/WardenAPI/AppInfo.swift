/// An app as the control API shows it (`GET /v1/apps`, `GET /v1/apps/NAME`).
public struct AppInfo: Codable, Sendable, Equatable {
    public var name: String
    /// `notRunning`, `inactive`, `active`, `background`, `suspended`.
    public var state: State
    /// `unknown`, `foreground`, `background`, `terminating`.
    public var status: Status
    public var pids: [Int32]
    /// The memory charged to the app (anonymous, shmem and swap), bytes; 0 when not running.
    public var footprintBytes: Int64
    /// How much of the footprint is in swap, as its compression or the last measurement of its
    /// group found it, bytes.
    public var swappedBytes: Int64
    /// What a kill would give back at once, bytes: the footprint's part in RAM and what its
    /// swapped part takes of RAM (compressed in a zram, nothing on a drive); the kill order ranks
    /// by it. 0 when not running.
    public var reclaimableBytes: Int64
    /// Kill band name (`suspended`, `idle-background`, …), nil when not running.
    public var band: Band?
    /// Background-task budget left, milliseconds; nil when no budget runs.
    public var timeRemainingMillis: Int64?
    /// Next planned fetch wake, wall-clock ms since the epoch.
    public var nextWakeMillis: Int64?
    public var openTasks: [TaskInfo]
    /// The continuous activities the app holds (rule 14), in the order begun.
    public var activities: [ActivityInfo]
    /// The fetch, push and accessory windows the app is in (rules 4, 5 and 14), in that order;
    /// none when it is in none.
    public var windows: [WindowInfo]
    public var heldResources: [String]
    public var forceQuit: Bool
    public var hasPreservedState: Bool
    /// The app's CPU class while it runs (rule 13): `foreground`, `background` or `activity`; nil
    /// when not running.
    public var cpuClass: String?
    /// The CPU time the running launch's processes have used, milliseconds; nil for an app not
    /// running or suspended (a frozen app uses none) and where the host cannot tell.
    public var cpuTimeMillis: Int64?
    /// The app's CPU use over its last measured window in background, in percent of one CPU
    /// (what the background CPU budget weighs); nil until one was measured in the current launch.
    public var backgroundCPUPercent: Int?
    /// How many times the user opened the app after the device had killed it (cold launches,
    /// each counted when the app became active); kept across restarts of the daemon.
    public var coldLaunches: Int

    public init(
        name: String, state: State, status: Status, pids: [Int32] = [], footprintBytes: Int64 = 0,
        swappedBytes: Int64 = 0, reclaimableBytes: Int64? = nil, band: Band? = nil, timeRemainingMillis: Int64? = nil,
        nextWakeMillis: Int64? = nil,
        openTasks: [TaskInfo] = [], activities: [ActivityInfo] = [], windows: [WindowInfo] = [],
        heldResources: [String] = [],
        forceQuit: Bool = false,
        hasPreservedState: Bool = false, cpuClass: String? = nil, cpuTimeMillis: Int64? = nil,
        backgroundCPUPercent: Int? = nil, coldLaunches: Int = 0
    ) {
        self.name = name
        self.state = state
        self.status = status
        self.pids = pids
        self.footprintBytes = footprintBytes
        self.swappedBytes = swappedBytes
        self.reclaimableBytes = reclaimableBytes ?? footprintBytes
        self.band = band
        self.timeRemainingMillis = timeRemainingMillis
        self.nextWakeMillis = nextWakeMillis
        self.openTasks = openTasks
        self.activities = activities
        self.windows = windows
        self.heldResources = heldResources
        self.forceQuit = forceQuit
        self.hasPreservedState = hasPreservedState
        self.cpuClass = cpuClass
        self.cpuTimeMillis = cpuTimeMillis
        self.backgroundCPUPercent = backgroundCPUPercent
        self.coldLaunches = coldLaunches
    }
}

extension AppInfo {
    private enum CodingKeys: String, CodingKey {
        case name, state, status, pids, footprintBytes, swappedBytes, reclaimableBytes, band, timeRemainingMillis,
            nextWakeMillis
        case openTasks, activities, windows, heldResources, forceQuit, hasPreservedState, cpuClass, cpuTimeMillis,
            backgroundCPUPercent
        case coldLaunches
    }

    /// Decodes an app; `swappedBytes`, which daemons before compression do not send, is 0 when
    /// absent, `reclaimableBytes`, which earlier daemons do not send, the footprint, `coldLaunches`,
    /// which earlier daemons do not send, 0, the CPU figures, which daemons before rule 13 do not
    /// send, are nil, and the activities, which daemons before rule 14 do not send, are none, as
    /// are the windows, which earlier daemons do not send.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            state: try container.decode(State.self, forKey: .state),
            status: try container.decode(Status.self, forKey: .status),
            pids: try container.decode([Int32].self, forKey: .pids),
            footprintBytes: try container.decode(Int64.self, forKey: .footprintBytes),
            swappedBytes: try container.decodeIfPresent(Int64.self, forKey: .swappedBytes) ?? 0,
            reclaimableBytes: try container.decodeIfPresent(Int64.self, forKey: .reclaimableBytes),
            band: try container.decodeIfPresent(Band.self, forKey: .band),
            timeRemainingMillis: try container.decodeIfPresent(Int64.self, forKey: .timeRemainingMillis),
            nextWakeMillis: try container.decodeIfPresent(Int64.self, forKey: .nextWakeMillis),
            openTasks: try container.decode([TaskInfo].self, forKey: .openTasks),
            activities: try container.decodeIfPresent([ActivityInfo].self, forKey: .activities) ?? [],
            windows: try container.decodeIfPresent([WindowInfo].self, forKey: .windows) ?? [],
            heldResources: try container.decode([String].self, forKey: .heldResources),
            forceQuit: try container.decode(Bool.self, forKey: .forceQuit),
            hasPreservedState: try container.decode(Bool.self, forKey: .hasPreservedState),
            cpuClass: try container.decodeIfPresent(String.self, forKey: .cpuClass),
            cpuTimeMillis: try container.decodeIfPresent(Int64.self, forKey: .cpuTimeMillis),
            backgroundCPUPercent: try container.decodeIfPresent(Int.self, forKey: .backgroundCPUPercent),
            coldLaunches: try container.decodeIfPresent(Int.self, forKey: .coldLaunches) ?? 0)
    }
}

/// An open background task.
public struct TaskInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// A continuous activity an app holds (rule 14).
public struct ActivityInfo: Codable, Sendable, Equatable {
    public var id: Int
    /// The background mode it was begun under: `audio`, `location` or `long-work`.
    public var mode: String

    public init(id: Int, mode: String) {
        self.id = id
        self.mode = mode
    }
}

/// A fetch, push or accessory window an app is in (rules 4, 5 and 14): woken in background, it
/// has until the window ends to call `complete-fetch`, `complete-push` or `complete-accessory`.
public struct WindowInfo: Codable, Sendable, Equatable {
    /// `fetch`, `push` or `accessory`.
    public var kind: String
    /// When the window ends unless the app completes it, wall-clock ms since the epoch: its
    /// length, with the time the app could not run added so far; nil where no end is armed.
    public var endMillis: Int64?
    /// For an accessory window, the action of the device event it is for (`add`, `remove`, …).
    public var action: String?
    /// For an accessory window, the device in a few words, such as `usb 1234:5678` (subsystem
    /// and vendor:product ids, else the device path), where the event said.
    public var device: String?

    public init(kind: String, endMillis: Int64?, action: String? = nil, device: String? = nil) {
        self.kind = kind
        self.endMillis = endMillis
        self.action = action
        self.device = device
    }
}

/// The answer of `GET /v1/apps/NAME/explain`: why the app is in its state, why it did or did
/// not run, why it was killed — in sentences drawn from the journal.
public struct Explanation: Codable, Sendable, Equatable {
    public var app: String
    public var state: AppInfo.State
    public var sentences: [String]

    public init(app: String, state: AppInfo.State, sentences: [String]) {
        self.app = app
        self.state = state
        self.sentences = sentences
    }
}

/// `GET /v1/health`.
public struct Health: Codable, Sendable, Equatable {
    public var ok: Bool
    public var version: String
    public var policy: String
    public var apps: Int
    public var pressure: String
    public var cgroupLayout: String
    public var dryRun: Bool
    /// The directory of the apps' log files (`APP.log` and its rotations `APP.log.1` …) on the
    /// daemon's machine; nil where the daemon keeps none.
    public var logDirectory: String?

    public init(
        ok: Bool, version: String, policy: String, apps: Int, pressure: String, cgroupLayout: String, dryRun: Bool,
        logDirectory: String? = nil
    ) {
        self.ok = ok
        self.version = version
        self.policy = policy
        self.apps = apps
        self.pressure = pressure
        self.cgroupLayout = cgroupLayout
        self.dryRun = dryRun
        self.logDirectory = logDirectory
    }
}

/// The JSON body of every 4xx/5xx answer.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// `notFound`, `conflict`, `unregistered`, `payloadTooLarge`, `invalid`, `forbidden`,
    /// `methodNotAllowed`, `internal`.
    public var error: String
    /// A full sentence naming what was wrong.
    public var message: String

    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}
