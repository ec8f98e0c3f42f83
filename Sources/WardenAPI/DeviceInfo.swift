/// The device as the control API shows it (`GET /v1/device`): memory, the pressure level and
/// its thresholds, and the last kills; what `appwarden top` draws below the apps.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// `normal`, `warning` or `critical`.
    public var pressure: String
    /// Memory available to the apps, bytes; nil when the daemon cannot measure it.
    public var availableBytes: Int64?
    /// The memory the thresholds are measured against, bytes; nil when unknown.
    public var totalBytes: Int64?
    /// The `[memory]` thresholds in bytes on this device; nil when the total is unknown.
    public var thresholds: Thresholds?
    /// The most recent kills, kept across restarts of the daemon, newest first (at most 10).
    public var recentKills: [KillInfo]
    /// How many times the user opened an app after the device had killed it (cold launches),
    /// over the policy's apps; nil from daemons that do not count them.
    public var coldLaunches: Int?

    public init(
        pressure: String, availableBytes: Int64? = nil, totalBytes: Int64? = nil, thresholds: Thresholds? = nil,
        recentKills: [KillInfo] = [], coldLaunches: Int? = nil
    ) {
        self.coldLaunches = coldLaunches
        self.pressure = pressure
        self.availableBytes = availableBytes
        self.totalBytes = totalBytes
        self.thresholds = thresholds
        self.recentKills = recentKills
    }

    /// `warning_enter`, `warning_exit`, `critical_enter` and `critical_exit`, in bytes.
    public struct Thresholds: Codable, Sendable, Equatable {
        public var warningEnterBytes: Int64
        public var warningExitBytes: Int64
        public var criticalEnterBytes: Int64
        public var criticalExitBytes: Int64

        public init(
            warningEnterBytes: Int64, warningExitBytes: Int64, criticalEnterBytes: Int64, criticalExitBytes: Int64
        ) {
            self.warningEnterBytes = warningEnterBytes
            self.warningExitBytes = warningExitBytes
            self.criticalEnterBytes = criticalEnterBytes
            self.criticalExitBytes = criticalExitBytes
        }
    }
}

/// One kill of an app's group: which app, why, how large it was, and when.
public struct KillInfo: Codable, Sendable, Equatable {
    public var app: String
    /// The termination reason (`memoryPressure`, `fetchTimeout`, …).
    public var reason: String
    /// The app's footprint when it was killed, bytes.
    public var footprintBytes: Int64
    /// Wall-clock time, milliseconds since the epoch.
    public var wallTimeMillis: Int64

    public init(app: String, reason: String, footprintBytes: Int64, wallTimeMillis: Int64) {
        self.app = app
        self.reason = reason
        self.footprintBytes = footprintBytes
        self.wallTimeMillis = wallTimeMillis
    }
}
