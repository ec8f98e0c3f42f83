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

/// `[background]`: rules 1–3 and the caps of rule 14.
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
    /// The most apps that may hold a continuous activity at once (`max_activities`, no cap;
    /// rule 14): an app may begin one only while fewer other apps hold one.
    public var maxActivities: Int?
    /// How long an activity may run unattended: in background without the person opening the
    /// app (`activity_limit`, no limit; rule 14). Then it is ended.
    public var activityLimit: Duration?

    public init(
        grace: Duration = .seconds(5), taskBudget: Duration = .seconds(600), expirationWarning: Duration = .seconds(5),
        wakeAfterSystemTermination: Bool = false, maxActivities: Int? = nil, activityLimit: Duration? = nil
    ) {
        self.grace = grace
        self.taskBudget = taskBudget
        self.expirationWarning = expirationWarning
        self.wakeAfterSystemTermination = wakeAfterSystemTermination
        self.maxActivities = maxActivities
        self.activityLimit = activityLimit
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
    /// Largest payload accepted, in bytes (`max_payload_bytes`, 4096; at most
    /// `payloadLimitBytes`).
    public var maxPayloadBytes: Int
    /// The most `max_payload_bytes` may be: a push is one request of the control API, whose
    /// body is at most this long.
    public static let payloadLimitBytes = 64 * 1024

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
