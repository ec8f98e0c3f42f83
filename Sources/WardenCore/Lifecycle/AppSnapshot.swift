/// What the core knows about one app at a moment: the row of `appwarden status` and the
/// facts `explain` starts from.
public struct AppSnapshot: Sendable, Equatable {
    /// A background task the app has begun and not ended.
    public struct OpenTask: Sendable, Equatable {
        public var id: Int
        public var name: String

        public init(id: Int, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// A continuous activity the app holds (rule 14).
    public struct Activity: Sendable, Equatable {
        public var id: Int
        /// The background mode it was begun under: `audio`, `location` or `long-work`.
        public var mode: BackgroundMode

        public init(id: Int, mode: BackgroundMode) {
            self.id = id
            self.mode = mode
        }
    }

    /// A fetch, push or accessory window the app is in (rules 4, 5 and 14).
    public struct OpenWindow: Sendable, Equatable {
        public var kind: BackgroundWindow
        /// When the window ends unless the app completes it: its length, with the stall added so
        /// far; nil where no end is armed.
        public var end: Instant?
        /// For an accessory window, the action of the event it is for (`add`, `remove`, …).
        public var action: String?
        /// For an accessory window, the device in a few words (`usb 1234:5678`), where the event
        /// said.
        public var device: String?

        public init(kind: BackgroundWindow, end: Instant?, action: String? = nil, device: String? = nil) {
            self.kind = kind
            self.end = end
            self.action = action
            self.device = device
        }
    }

    public var name: String
    public var state: AppState
    /// The status last published to the status notifier's observers while the app runs;
    /// `unknown` once it is not running (its last publication was `terminating`).
    public var status: AppStatus
    /// The current launch number (0 before the first launch).
    public var launch: Int
    /// What killing the app would give back, in bytes (the last measurement).
    public var footprint: Int64
    /// How much of the footprint is in swap, as its compression or the last measurement of its
    /// group found it, in bytes.
    public var swappedBytes: Int64
    /// What a kill would give back at once, in bytes: the footprint's part in RAM and what its
    /// swapped part takes of RAM (rule 9 ranks by it).
    public var reclaimableBytes: Int64
    /// The kill band (rule 9) while the app runs; nil when it does not.
    public var band: KillBand?
    /// What is left of the background-task budget; nil in the foreground, while an activity is
    /// held, or when not running.
    public var taskTimeRemaining: Duration?
    /// When the next background fetch is planned, if any.
    public var nextFetchWake: Instant?
    public var openTasks: [OpenTask]
    /// The continuous activities held, in the order begun.
    public var activities: [Activity]
    /// Shared resources acquired and not released.
    public var heldResources: [String]
    /// Force-quit by the user and not opened since: no fetch or push wakes it.
    public var isForceQuit: Bool
    /// Whether preserved state exists (the app was asked to save it and it was not deleted).
    public var hasPreservedState: Bool
    /// Whether a graceful termination is waiting for the process to exit.
    public var isTerminating: Bool
    public var fetchWindowOpen: Bool
    public var pushWindowOpen: Bool
    /// The windows open, fetch, push and accessory in that order; none when the app is in none.
    public var windows: [OpenWindow]
    /// The app's CPU class (rule 13) while it runs; nil when it does not.
    public var cpuClass: CPUClass?
    /// Its CPU use over its last measured window in background, in percent of one CPU (the
    /// background CPU budget's figure); nil until one was measured in the current launch.
    public var backgroundCPUPercent: Int?
    /// How many times the user opened the app after the device had killed it (cold launches).
    public var coldLaunches: Int

    public init(
        name: String,
        state: AppState,
        status: AppStatus,
        launch: Int,
        footprint: Int64,
        swappedBytes: Int64 = 0,
        reclaimableBytes: Int64? = nil,
        band: KillBand?,
        taskTimeRemaining: Duration?,
        nextFetchWake: Instant?,
        openTasks: [OpenTask],
        activities: [Activity] = [],
        heldResources: [String],
        isForceQuit: Bool,
        hasPreservedState: Bool,
        isTerminating: Bool,
        fetchWindowOpen: Bool,
        pushWindowOpen: Bool,
        windows: [OpenWindow] = [],
        cpuClass: CPUClass? = nil,
        backgroundCPUPercent: Int? = nil,
        coldLaunches: Int = 0
    ) {
        self.name = name
        self.state = state
        self.status = status
        self.launch = launch
        self.footprint = footprint
        self.swappedBytes = swappedBytes
        self.reclaimableBytes = reclaimableBytes ?? footprint
        self.band = band
        self.taskTimeRemaining = taskTimeRemaining
        self.nextFetchWake = nextFetchWake
        self.openTasks = openTasks
        self.activities = activities
        self.heldResources = heldResources
        self.isForceQuit = isForceQuit
        self.hasPreservedState = hasPreservedState
        self.isTerminating = isTerminating
        self.fetchWindowOpen = fetchWindowOpen
        self.pushWindowOpen = pushWindowOpen
        self.windows = windows
        self.cpuClass = cpuClass
        self.backgroundCPUPercent = backgroundCPUPercent
        self.coldLaunches = coldLaunches
    }
}
