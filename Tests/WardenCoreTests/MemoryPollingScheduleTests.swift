import Testing
import WardenCore

@Suite("Memory polling schedule")
struct MemoryPollingScheduleTests {
    static let mib: Int64 = 1 << 20
    /// A 512 MiB device: warning below 128 MiB available, critical below 64 MiB.
    static let settings = MemorySettings(
        warningEnter: .bytes(128 << 20), warningExit: .bytes(160 << 20), criticalEnter: .bytes(64 << 20),
        criticalExit: .bytes(96 << 20))
    static let total: Int64 = 512 << 20

    static func at(_ milliseconds: Int64) -> Instant {
        Instant(sinceOrigin: .milliseconds(milliseconds))
    }

    /// Plentiful memory with nothing growing waits the longest interval, 1 s.
    @Test func plentifulMemoryWaitsTheCeiling() {
        var schedule = MemoryPollingSchedule()
        schedule.record(available: 20 * 1024 * Self.mib, at: Self.at(0))
        let interval = schedule.interval(
            available: 20 * 1024 * Self.mib, total: 32 * 1024 * Self.mib, level: .normal, settings: Self.settings,
            at: Self.at(0))
        #expect(interval == .seconds(1))
    }

    /// The interval is half the time the assumed growth of 1 GiB/s takes to use up the headroom
    /// to the next threshold: 256 MiB above warning → 125 ms.
    @Test func intervalIsHalfTheTimeToReachTheNextThreshold() {
        let schedule = MemoryPollingSchedule()
        let interval = schedule.interval(
            available: 384 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, at: Self.at(0))
        #expect(interval == .milliseconds(125))
    }

    /// In warning the next threshold is critical_enter: 32 MiB of headroom at 1 GiB/s → about 16 ms.
    @Test func warningPlansForTheCriticalThreshold() {
        let schedule = MemoryPollingSchedule()
        let interval = schedule.interval(
            available: 96 * Self.mib, total: Self.total, level: .warning, settings: Self.settings, at: Self.at(0))
        #expect(interval == .microseconds(15625))
    }

    /// In warning under critical_enter (a device with swap whose kernel still makes room,
    /// `stall_before_kill`) the next threshold is a quarter of it: 47 MiB above 16 MiB at 1 GiB/s
    /// → about 23 ms; with `stall_before_kill = "none"` such a sample would be critical: the floor.
    @Test func warningUnderCriticalEnterPlansForAQuarterOfIt() {
        let schedule = MemoryPollingSchedule()
        let interval = schedule.interval(
            available: 63 * Self.mib, total: Self.total, level: .warning, settings: Self.settings, at: Self.at(0))
        #expect(interval == .microseconds(22949))
        var off = Self.settings
        off.stallBeforeKill = nil
        #expect(
            schedule.interval(
                available: 63 * Self.mib, total: Self.total, level: .warning, settings: off, at: Self.at(0))
                == schedule.floor)
    }

    /// Growth seen faster than the assumed rate shortens the interval: 4 GiB/s quarters it.
    @Test func fastGrowthShortensTheInterval() {
        var schedule = MemoryPollingSchedule()
        schedule.record(available: 5000 * Self.mib, at: Self.at(0))
        schedule.record(available: 904 * Self.mib, at: Self.at(1000))  // 4,096 MiB in 1 s
        #expect(schedule.plannedGrowth(at: Self.at(1000)) == 4 << 30)
        let interval = schedule.interval(
            available: 384 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, at: Self.at(1000))
        #expect(interval == .microseconds(31250))
    }

    /// The fastest growth is remembered for 2 s even when growth slows, then forgotten.
    @Test func fastestGrowthIsRememberedForAWhile() {
        var schedule = MemoryPollingSchedule()
        schedule.record(available: 5000 * Self.mib, at: Self.at(0))
        schedule.record(available: 904 * Self.mib, at: Self.at(1000))
        schedule.record(available: 903 * Self.mib, at: Self.at(2000))
        #expect(schedule.plannedGrowth(at: Self.at(2000)) == 4 << 30)
        schedule.record(available: 902 * Self.mib, at: Self.at(3500))
        #expect(schedule.plannedGrowth(at: Self.at(3500)) == 1 << 30)
    }

    /// Memory coming back is no growth: the planned growth stays the assumed one.
    @Test func memoryComingBackIsNoGrowth() {
        var schedule = MemoryPollingSchedule()
        schedule.record(available: 100 * Self.mib, at: Self.at(0))
        schedule.record(available: 300 * Self.mib, at: Self.at(10))
        #expect(schedule.plannedGrowth(at: Self.at(10)) == 1 << 30)
        #expect(schedule.fastest?.bytesPerSecond == 0)
    }

    /// Near a threshold, below it, while critical and while killing, the interval is the 10 ms floor.
    @Test func floorNearAThresholdWhileCriticalAndWhileKilling() {
        let schedule = MemoryPollingSchedule()
        let near = schedule.interval(
            available: 129 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, at: Self.at(0))
        let below = schedule.interval(
            available: 120 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, at: Self.at(0))
        // Critical until critical_exit (96 MiB) is reached, however much is available in between.
        let critical = schedule.interval(
            available: 90 * Self.mib, total: Self.total, level: .critical, settings: Self.settings, at: Self.at(0))
        let killing = schedule.interval(
            available: 400 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, killing: true,
            at: Self.at(0))
        #expect(near == .milliseconds(10))
        #expect(below == .milliseconds(10))
        #expect(critical == .milliseconds(10))
        #expect(killing == .milliseconds(10))
    }

    /// Percentage thresholds resolve against the device's memory: 15 % of 1,000 MiB is the warning mark.
    @Test func percentageThresholdsResolveAgainstTotal() {
        let schedule = MemoryPollingSchedule()
        // Default warning_enter is 15 %: 150 MiB; 512 MiB above it at 1 GiB/s → 250 ms.
        let interval = schedule.interval(
            available: 662 * Self.mib, total: 1000 * Self.mib, level: .normal, settings: MemorySettings(),
            at: Self.at(0))
        #expect(interval == .milliseconds(250))
    }

    /// A quiet device (every app frozen or not running) plans for 32 MiB/s and waits up to 5 s:
    /// 256 MiB above warning → 4 s instead of 125 ms; plentiful memory → 5 s.
    @Test func aQuietDevicePlansForSlowGrowthAndWaitsLonger() {
        var schedule = MemoryPollingSchedule()
        let quiet = schedule.interval(
            available: 384 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, quiet: true,
            at: Self.at(0))
        #expect(quiet == .seconds(4))
        let plentiful = schedule.interval(
            available: 20 * 1024 * Self.mib, total: 32 * 1024 * Self.mib, level: .normal, settings: Self.settings,
            quiet: true, at: Self.at(0))
        #expect(plentiful == .seconds(5))
        // Growth seen (by processes outside the apps) still counts: 256 MiB/s → 500 ms.
        schedule.record(available: 640 * Self.mib, at: Self.at(0))
        schedule.record(available: 384 * Self.mib, at: Self.at(1000))
        let growing = schedule.interval(
            available: 384 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, quiet: true,
            at: Self.at(1000))
        #expect(growing == .milliseconds(500))
        // Near a threshold and while critical the floor holds, quiet or not.
        let near = schedule.interval(
            available: 129 * Self.mib, total: Self.total, level: .normal, settings: Self.settings, quiet: true,
            at: Self.at(1000))
        #expect(near == .milliseconds(10))
        let critical = schedule.interval(
            available: 90 * Self.mib, total: Self.total, level: .critical, settings: Self.settings, quiet: true,
            at: Self.at(1000))
        #expect(critical == .milliseconds(10))
    }
}
