/// The complete, validated policy the core runs under: global settings and one entry per app.
///
/// `WardenPolicy` builds it from TOML; tests and the simulator may also build it in code.
/// Every number has the default of DESIGN §1; an app's `settings` are the global settings
/// with the app's own overrides already applied.
public struct Policy: Sendable, Equatable {
    /// How many apps may be in the foreground at once (`foreground_slots`, default 1).
    public var foregroundSlots: Int
    /// The global timing settings; each app carries a resolved copy in `AppPolicy.settings`.
    public var settings: TimingSettings
    /// Memory-pressure levels and kill behaviour (`[memory]`).
    public var memory: MemorySettings
    /// Shared resources (`[resources.NAME]`), by name.
    public var resources: [String: ResourceDeclaration]
    /// The apps, in the order the policy file declares them.
    public var apps: [AppPolicy]
    /// Bounds on each app's group beyond memory (`[limits]`).
    public var limits = LimitSettings()
    /// How much history the journal keeps (`[journal]`).
    public var journal = JournalRetention()
    /// The size cap and rotation of each app's log file (`[logs]`).
    public var logs = AppLogSettings()
    /// Operator commands run on kills and pressure changes (`[hooks]`).
    public var hooks = HookSettings()

    public init(
        foregroundSlots: Int = 1,
        settings: TimingSettings = TimingSettings(),
        memory: MemorySettings = MemorySettings(),
        resources: [String: ResourceDeclaration] = [:],
        apps: [AppPolicy] = []
    ) {
        self.foregroundSlots = foregroundSlots
        self.settings = settings
        self.memory = memory
        self.resources = resources
        self.apps = apps
    }

    /// The app named `name`, if the policy declares it.
    public func app(named name: String) -> AppPolicy? {
        apps.first { $0.name == name }
    }
}

/// Every timing number of DESIGN §1.3 that a policy sets globally and an app may override.
public struct TimingSettings: Sendable, Equatable {
    /// `[background]`
    public var background: BackgroundSettings
    /// `[fetch]`
    public var fetch: FetchSettings
    /// `[push]`
    public var push: PushSettings
    /// `[watchdog]`
    public var watchdog: WatchdogSettings
    /// `[termination]`
    public var termination: TerminationSettings
    /// `[launch]`
    public var launch: LaunchSettings
    /// `[restoration]`
    public var restoration: RestorationSettings
    /// The memory-warning interval (`[memory] warning_interval`), per app.
    public var memoryWarningInterval: Duration

    public init(
        background: BackgroundSettings = BackgroundSettings(),
        fetch: FetchSettings = FetchSettings(),
        push: PushSettings = PushSettings(),
        watchdog: WatchdogSettings = WatchdogSettings(),
        termination: TerminationSettings = TerminationSettings(),
        launch: LaunchSettings = LaunchSettings(),
        restoration: RestorationSettings = RestorationSettings(),
        memoryWarningInterval: Duration = .seconds(30)
    ) {
        self.background = background
        self.fetch = fetch
        self.push = push
        self.watchdog = watchdog
        self.termination = termination
        self.launch = launch
        self.restoration = restoration
        self.memoryWarningInterval = memoryWarningInterval
    }
}

/// `[background]`: rules 1–3.
public struct BackgroundSettings: Sendable, Equatable {
    /// Time in background with nothing keeping the app awake before it is suspended (`grace`, 5 s).
    public var grace: Duration
    /// Background-task budget per background session (`task_budget`, 600 s).
    public var taskBudget: Duration
    /// How long before the budget ends open tasks get their expiration call (`expiration_warning`, 5 s).
    public var expirationWarning: Duration
    /// Whether fetch and push wakes may launch an app the system terminated before the user
    /// opens it again (`wake_after_system_termination`, false).
    public var wakeAfterSystemTermination: Bool

    public init(
        grace: Duration = .seconds(5), taskBudget: Duration = .seconds(600), expirationWarning: Duration = .seconds(5),
        wakeAfterSystemTermination: Bool = false
    ) {
        self.grace = grace
        self.taskBudget = taskBudget
        self.expirationWarning = expirationWarning
        self.wakeAfterSystemTermination = wakeAfterSystemTermination
    }
}

/// `[fetch]`: rule 4.
public struct FetchSettings: Sendable, Equatable {
    /// Time an app has to call `complete-fetch` (`window`, 30 s).
    public var window: Duration
    /// Wakes due within this span of each other are batched (`coalesce`, 60 s).
    public var coalesce: Duration
    /// The interval that `fetch_interval = "minimum"` stands for (`minimum_interval`, 15 m).
    public var minimumInterval: Duration
    /// The longest the adaptive scheduler may stretch an app's interval to (`maximum_interval`, 6 h).
    public var maximumInterval: Duration

    public init(
        window: Duration = .seconds(30),
        coalesce: Duration = .seconds(60),
        minimumInterval: Duration = .seconds(900),
        maximumInterval: Duration = .seconds(6 * 3600)
    ) {
        self.window = window
        self.coalesce = coalesce
        self.minimumInterval = minimumInterval
        self.maximumInterval = maximumInterval
    }
}

/// `[push]`: rule 5.
public struct PushSettings: Sendable, Equatable {
    /// Time an app has to call `complete-push` (`window`, 30 s).
    public var window: Duration
    /// Wakes per app in any hour (`max_per_hour`, 3).
    public var maxPerHour: Int
    /// Largest payload accepted, in bytes (`max_payload_bytes`, 4096).
    public var maxPayloadBytes: Int

    public init(window: Duration = .seconds(30), maxPerHour: Int = 3, maxPayloadBytes: Int = 4096) {
        self.window = window
        self.maxPerHour = maxPerHour
        self.maxPayloadBytes = maxPayloadBytes
    }
}

/// `[watchdog]`: §1.5.
public struct WatchdogSettings: Sendable, Equatable {
    /// Time without a status report before a reported-status app is re-checked (`interval`, 600 s).
    public var interval: Duration

    public init(interval: Duration = .seconds(600)) {
        self.interval = interval
    }
}

/// `[termination]`: rule 11.
public struct TerminationSettings: Sendable, Equatable {
    /// Time between SIGTERM and killing the whole group (`grace`, 5 s).
    public var grace: Duration

    public init(grace: Duration = .seconds(5)) {
        self.grace = grace
    }
}

/// `[launch]`: rule 12.
public struct LaunchSettings: Sendable, Equatable {
    /// Time a `readiness = "notify"` app has to call `ready` (`timeout`, 20 s).
    public var timeout: Duration

    public init(timeout: Duration = .seconds(20)) {
        self.timeout = timeout
    }
}

/// `[restoration]`: §1.4.
public struct RestorationSettings: Sendable, Equatable {
    /// A crash this soon after a restoring launch deletes the preserved state (`crash_window`, 10 s).
    public var crashWindow: Duration

    public init(crashWindow: Duration = .seconds(10)) {
        self.crashWindow = crashWindow
    }
}

/// `[memory]`: rules 8 and 9.
public struct MemorySettings: Sendable, Equatable {
    /// Available memory below which the level becomes `warning` (`warning_enter`, 15%).
    public var warningEnter: MemoryThreshold
    /// Available memory at or above which `warning` ends (`warning_exit`, 20%).
    public var warningExit: MemoryThreshold
    /// Available memory below which the level becomes `critical` (`critical_enter`, 5%).
    public var criticalEnter: MemoryThreshold
    /// Available memory at or above which `critical` ends (`critical_exit`, 10%).
    public var criticalExit: MemoryThreshold
    /// Whether foreground apps may be killed as a last resort (`kill_foreground`, true).
    public var killForeground: Bool

    public init(
        warningEnter: MemoryThreshold = .percent(15),
        warningExit: MemoryThreshold = .percent(20),
        criticalEnter: MemoryThreshold = .percent(5),
        criticalExit: MemoryThreshold = .percent(10),
        killForeground: Bool = true
    ) {
        self.warningEnter = warningEnter
        self.warningExit = warningExit
        self.criticalEnter = criticalEnter
        self.criticalExit = criticalExit
        self.killForeground = killForeground
    }
}

/// An amount of available memory: absolute, or a share of the device's memory.
public enum MemoryThreshold: Sendable, Equatable, CustomStringConvertible {
    case bytes(Int64)
    case percent(Double)

    /// The threshold in bytes on a device with `total` bytes of memory.
    public func bytes(ofTotal total: Int64) -> Int64 {
        switch self {
        case .bytes(let bytes): bytes
        case .percent(let percent): Int64((Double(total) * percent / 100).rounded())
        }
    }

    public var description: String {
        switch self {
        case .bytes(let bytes): DurationFormat.sizeString(bytes)
        case .percent(let percent):
            percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        }
    }
}

/// A shared resource (`[resources.NAME]`): rule 7.
public struct ResourceDeclaration: Sendable, Equatable {
    public var name: String
    /// Paths that count as holding the resource when one of the app's processes has one
    /// open or locked. Empty: the resource is held only through `acquire`.
    public var paths: [String]
    /// What the resource is, for people reading `status` and `explain`.
    public var description: String?

    public init(name: String, paths: [String] = [], description: String? = nil) {
        self.name = name
        self.paths = paths
        self.description = description
    }
}

/// One `[apps.NAME]` table.
public struct AppPolicy: Sendable, Equatable {
    public var name: String
    /// The program to run; optional in scenarios, required by the daemon.
    public var command: String?
    public var args: [String]
    public var env: [String: String]
    public var workingDirectory: String?
    /// The user to run as (name or numeric uid); nil runs as the daemon's user.
    public var user: String?
    public var backgroundModes: Set<BackgroundMode>
    /// Requested fetch interval (`fetch_interval`, default `never`).
    public var fetchInterval: FetchInterval
    /// The user's switch for background fetch (`background_refresh`, default true).
    public var backgroundRefresh: Bool
    /// Never chosen by the memory-pressure killer (`protected`, default false).
    public var isProtected: Bool
    public var readiness: Readiness
    public var statusSource: StatusSource
    /// Hard memory limit for the app's group (`memory_max`).
    public var memoryMax: Int64?
    /// Throttling memory limit for the app's group (`memory_high`).
    public var memoryHigh: Int64?
    /// Shared resources the app may acquire (`resources`), each declared under `[resources]`.
    public var resources: [String]
    /// Global timing settings with this app's overrides applied.
    public var settings: TimingSettings
    /// Signals sent to the app's main process along with messages on its event stream
    /// (`signals`), by message kind: `expiration_warning`, `fetch_start`, `push_payload`,
    /// `memory_warning`, `save_state`; each value is a Linux signal number. Empty by default.
    public var signals: [String: Int32] = [:]
    /// The most tasks the app's group may hold (`tasks_max`; `[limits] tasks_max` by default).
    public var tasksMax: TaskLimit = LimitSettings().tasksMax

    public init(
        name: String,
        command: String? = nil,
        args: [String] = [],
        env: [String: String] = [:],
        workingDirectory: String? = nil,
        user: String? = nil,
        backgroundModes: Set<BackgroundMode> = [],
        fetchInterval: FetchInterval = .never,
        backgroundRefresh: Bool = true,
        isProtected: Bool = false,
        readiness: Readiness = .immediate,
        statusSource: StatusSource = .managed,
        memoryMax: Int64? = nil,
        memoryHigh: Int64? = nil,
        resources: [String] = [],
        settings: TimingSettings = TimingSettings()
    ) {
        self.name = name
        self.command = command
        self.args = args
        self.env = env
        self.workingDirectory = workingDirectory
        self.user = user
        self.backgroundModes = backgroundModes
        self.fetchInterval = fetchInterval
        self.backgroundRefresh = backgroundRefresh
        self.isProtected = isProtected
        self.readiness = readiness
        self.statusSource = statusSource
        self.memoryMax = memoryMax
        self.memoryHigh = memoryHigh
        self.resources = resources
        self.settings = settings
    }
}

/// The background modes appwarden accepts (`background_modes`); each one is enforced by the core.
public enum BackgroundMode: String, Sendable, Hashable, CaseIterable {
    /// Background fetch wakes (rule 4): without it the app is never woken for a fetch.
    case fetch
    /// Silent pushes (rule 5): without it a push is accepted but wakes and launches nothing.
    case remoteNotification = "remote-notification"

    /// iOS modes that appwarden does not implement, which a policy may not name: background
    /// tasks need no mode here, and nothing keeps an app unfrozen for audio, location, VoIP or
    /// accessories.
    public static let unsupported = [
        "processing", "audio", "location", "voip", "external-accessory", "bluetooth-central", "bluetooth-peripheral",
    ]
}

/// `fetch_interval` and `set-fetch-interval`: `never`, `minimum` or a duration.
public enum FetchInterval: Sendable, Equatable, Codable, CustomStringConvertible {
    case never
    case minimum
    case every(Duration)

    /// Parses `"never"`, `"minimum"` or a duration such as `"15m"`.
    public init?(parsing text: String) {
        switch text {
        case "never": self = .never
        case "minimum": self = .minimum
        default:
            guard let duration = DurationFormat.parse(text), duration > .zero else { return nil }
            self = .every(duration)
        }
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .minimum: "minimum"
        case .every(let duration): DurationFormat.string(duration)
        }
    }
}

/// `readiness`: whether the app becomes active as soon as it runs, or when it calls `ready`.
public enum Readiness: String, Sendable, Equatable {
    /// Ready as soon as its process runs (default).
    case immediate
    /// Ready when it calls `ready`; terminated with `launchTimeout` if it does not in time.
    case notify
}

/// `status_source`: who tells appwarden whether the app is in the foreground.
public enum StatusSource: String, Sendable, Equatable {
    /// appwarden drives the lifecycle and knows (default).
    case managed
    /// The app reports its own status with `report-status`; the watchdog re-checks it.
    case reported
}
