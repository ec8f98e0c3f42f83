import WardenCgroup
import WardenCore

/// What the memory watch keeps between measurements: when it measures next, when the sweeps of
/// the apps are due, and the v1 usage thresholds it armed.
struct MemoryWatch {
    /// How soon to measure again (the rule lives in the core).
    var schedule = MemoryPollingSchedule()
    /// When the next measurement is due, since the clock's origin; nil while the device's memory
    /// cannot be measured (then only signals and sweeps wake the watch).
    var nextMeasurement: Duration?
    /// When the next sweep of the running apps is due (none while the device is quiet).
    var nextSweep: Duration?
    /// When suspended apps' groups are next checked for a thaw behind appwarden's back.
    var nextSuspendedCheck: Duration?
    /// The place in the policy's declaration order of the last suspended app that check looked
    /// at (`Lifecycle.apps(in:)`): the next check goes on after it.
    var lastSuspendedChecked: Int?
    /// How many sweeps have run.
    var sweeps = 0
    /// Whether the device was quiet (`WardenDaemon.deviceIsQuiet`) at the last measurement.
    var quiet = false
    /// When the last event other than a measurement was handled, since the clock's origin.
    var lastEvent: Duration = .zero
    /// Whether the daemon's heap was trimmed since that event (`DaemonMemory.trimHeap`).
    var trimmed = false
    /// The parts of the daemon's code and read-only data left unlocked at start
    /// (`DaemonMemory.lockTouchedPages`), let go of with the trim.
    var unlockedCode: [DaemonMemory.MappingRange] = []
    /// The v1 usage thresholds armed: the group and the usage marks.
    var thresholds: (group: String, marks: [UInt64])?
    /// The daemon's major page faults when the last measurement began (`DaemonMemory.majorFaults`):
    /// a kill for memory says how many it took since, which should be none.
    var faultsAtMeasurement: Int?
    /// The marks the kernel refused (logged once, not tried again for the same marks).
    var refusedMarks: [UInt64] = []

    /// The earliest of the watch's deadlines: the next measurement, sweep or suspended check.
    var due: Duration? {
        [nextMeasurement, quiet ? nil : nextSweep, nextSuspendedCheck].compactMap { $0 }.min()
    }
}
