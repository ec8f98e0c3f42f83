/// One `[apps.NAME]` table.
public struct AppPolicy: Sendable, Equatable {
    /// The longest app name, in bytes (names are ASCII, so in characters too): the app's
    /// memory-pressure socket beside the default control socket, `/run/appwarden-pressure/NAME.sock`,
    /// is then at most 93 bytes, within the 108 of a Unix socket path (`sun_path`) with its
    /// terminating zero.
    public static let nameLimit = 64

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
    /// Throttling memory limit for the app's group (`memory_high`); an app whose footprint
    /// goes over it gets a memory warning of its own.
    public var memoryHigh: Int64?
    /// The app's own memory bounds (`[apps.NAME.memory]`): each one overrides the global
    /// `[memory]` setting of the same name; nil takes the global one.
    public var memory = AppMemoryOverrides()
    /// Shared resources the app may acquire (`resources`), each declared under `[resources]`.
    public var resources: [String]
    /// Global timing settings with this app's overrides applied.
    public var settings: TimingSettings
    /// Signals sent to the app's main process along with messages on its event stream
    /// (`signals`), by message kind: `expiration_warning`, `fetch_start`, `push_payload`, `accessory_event`,
    /// `memory_warning`, `save_state`; each value is a Linux signal number. Empty by default.
    public var signals: [String: Int32] = [:]
    /// The most tasks the app's group may hold (`tasks_max`; `[limits] tasks_max` by default).
    public var tasksMax: TaskLimit = LimitSettings().tasksMax
    /// The app's CPU classes and background CPU budget (`[cpu]` with `[apps.NAME.cpu]` applied).
    public var cpu = CPUSettings()
    /// The accessories whose arrival or departure wakes the app (`accessories`, rule 14).
    public var accessories: [AccessoryMatch] = []

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
public enum BackgroundMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Background fetch wakes (rule 4): without it the app is never woken for a fetch.
    case fetch
    /// Silent pushes (rule 5): without it a push is accepted but wakes and launches nothing.
    case remoteNotification = "remote-notification"
    /// Continuous work (rule 14): playing or recording sound. The app may hold an `audio` activity.
    case audio
    /// Continuous work (rule 14): following the device's position. The app may hold a `location` activity.
    case location
    /// Continuous work (rule 14) of any other kind the person is waiting on (a long upload, a
    /// workout, a call). The app may hold a `long-work` activity.
    case longWork = "long-work"

    /// Whether the mode lets the app hold an activity (rule 14): `audio`, `location`, `long-work`.
    public var isContinuous: Bool {
        switch self {
        case .fetch, .remoteNotification: false
        case .audio, .location, .longWork: true
        }
    }

    /// iOS modes that appwarden does not implement, which a policy may not name: background
    /// tasks need no mode here, nothing keeps an app unfrozen for VoIP (`long-work` covers a
    /// call the app holds an activity for), and accessories are declared with `accessories`.
    public static let unsupported = [
        "processing", "voip", "external-accessory", "bluetooth-central", "bluetooth-peripheral",
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
