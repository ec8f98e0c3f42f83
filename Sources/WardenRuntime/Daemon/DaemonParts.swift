public import Logging
public import WardenCgroup
public import WardenCore

/// What the daemon works through: its clock and alarm, its journal, the cgroups, the processes,
/// the memory measurements and the kernel's memory signals. The host's parts make the real
/// daemon (`WardenDaemon.make(options:)`); `WardenTesting` passes fakes to run it in virtual time.
public struct DaemonParts: Sendable {
    /// The monotonic clock the core's instants and every deadline are on.
    public var clock: WardenClock
    /// Who wakes the daemon at its next deadline.
    public var alarm: any DaemonAlarm
    /// The durable journal and checkpoint.
    public var journal: any WardenJournal
    /// The apps' groups; nil runs without groups (a dry run on a host without cgroups).
    public var driver: (any CgroupDriver)?
    /// Starts, signals and watches the apps' processes.
    public var launcher: any ProcessLauncher
    /// Measures the device's and the apps' memory.
    public var memory: any WardenMemorySource
    /// The kernel's memory notifications.
    public var signals: any MemorySignalSource
    /// Devices added and removed (rule 14); nil hears of none (virtual time, where scenario
    /// steps stand for them).
    public var devices: (any DeviceEventSource)?
    /// Where new device tokens come from.
    public var tokenSource: DeviceTokenSource
    public var logger: Logger

    public init(
        clock: WardenClock, alarm: any DaemonAlarm, journal: any WardenJournal, driver: (any CgroupDriver)?,
        launcher: any ProcessLauncher, memory: any WardenMemorySource, signals: any MemorySignalSource,
        devices: (any DeviceEventSource)? = nil, tokenSource: DeviceTokenSource = .systemRandom, logger: Logger
    ) {
        self.devices = devices
        self.clock = clock
        self.alarm = alarm
        self.journal = journal
        self.driver = driver
        self.launcher = launcher
        self.memory = memory
        self.signals = signals
        self.tokenSource = tokenSource
        self.logger = logger
    }
}
