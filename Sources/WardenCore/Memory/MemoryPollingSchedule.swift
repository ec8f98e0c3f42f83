/// How soon to measure the device's memory again between sweeps (rules 8 and 9).
///
/// The interval follows the headroom to the next threshold below the current level and the
/// fastest growth seen recently: the time memory would take to reach that threshold at that
/// growth, halved, between `floor` and `ceiling`. While memory is critical, or while a kill
/// for memory is under way, it is `floor` until the critical exit threshold is reached.
/// Growth is never taken as slower than `assumedGrowth`, so a burst that starts from rest
/// is caught within about one interval. Memory coming back (available rising) is no growth.
///
/// When the device is quiet (every app suspended, that is frozen, or not running), nothing
/// appwarden runs can grow: the growth assumed is `quietGrowth` and the longest interval
/// `quietCeiling`, and what processes outside the apps do is left to the kernel's
/// notifications (usage thresholds, PSI), which make the daemon measure at once.
///
/// A pure value: `record` takes each measurement with the time it was taken; nothing here
/// reads a clock or allocates.
public struct MemoryPollingSchedule: Sendable {
    /// The shortest interval: near a threshold, while critical and while killing.
    public var floor: Duration
    /// The longest interval, when memory is plentiful.
    public var ceiling: Duration
    /// The growth assumed when less was seen, in bytes per second.
    public var assumedGrowth: Int64
    /// How long the fastest growth seen is remembered.
    public var growthMemory: Duration
    /// The longest interval while the device is quiet.
    public var quietCeiling: Duration
    /// The growth assumed while the device is quiet, in bytes per second.
    public var quietGrowth: Int64

    /// The previous measurement: when, and how much was available.
    public private(set) var last: (time: Instant, available: Int64)?
    /// The fastest growth seen within `growthMemory`, in bytes per second, and when it was seen.
    public private(set) var fastest: (bytesPerSecond: Int64, time: Instant)?

    /// Makes a schedule: 10 ms to 1 s, assuming growth of at least 1 GiB/s, remembered for 2 s;
    /// while quiet, up to 5 s assuming 32 MiB/s.
    public init(
        floor: Duration = .milliseconds(10), ceiling: Duration = .seconds(1), assumedGrowth: Int64 = 1 << 30,
        growthMemory: Duration = .seconds(2), quietCeiling: Duration = .seconds(5), quietGrowth: Int64 = 32 << 20
    ) {
        self.floor = floor
        self.ceiling = max(floor, ceiling)
        self.assumedGrowth = max(1, assumedGrowth)
        self.growthMemory = growthMemory
        self.quietCeiling = max(self.ceiling, quietCeiling)
        self.quietGrowth = max(1, min(self.assumedGrowth, quietGrowth))
    }

    /// Takes a measurement of the available memory made at `time`.
    public mutating func record(available: Int64, at time: Instant) {
        defer { last = (time, available) }
        guard let last, time > last.time else { return }
        let elapsed = (time - last.time).inSeconds
        let rate = (Double(last.available) - Double(available)) / elapsed
        let growth = rate >= 9e18 ? Int64.max : Int64(max(0, rate))
        if let fastest, growth < fastest.bytesPerSecond, time - fastest.time <= growthMemory { return }
        fastest = (growth, time)
    }

    /// The growth the interval is planned for: the fastest seen recently, at least
    /// `assumedGrowth` (`quietGrowth` while the device is quiet).
    public func plannedGrowth(at time: Instant, quiet: Bool = false) -> Int64 {
        let assumed = quiet ? quietGrowth : assumedGrowth
        guard let fastest, time - fastest.time <= growthMemory else { return assumed }
        return max(assumed, fastest.bytesPerSecond)
    }

    /// How long to wait before the next measurement.
    ///
    /// - Parameters:
    ///   - available: The available memory just measured, in bytes.
    ///   - total: The device's memory, which percentage thresholds resolve against.
    ///   - level: The core's level after that measurement.
    ///   - settings: The policy's thresholds.
    ///   - killing: Whether a kill for memory is under way.
    ///   - quiet: Whether every app is suspended or not running.
    ///   - time: When the measurement was made.
    public func interval(
        available: Int64, total: Int64, level: PressureLevel, settings: MemorySettings, killing: Bool = false,
        quiet: Bool = false, at time: Instant
    ) -> Duration {
        if killing || level == .critical { return floor }
        var threshold =
            level == .warning
            ? settings.criticalEnter.bytes(ofTotal: total) : settings.warningEnter.bytes(ofTotal: total)
        // Under critical_enter without being critical: a device with swap whose kernel still
        // makes room (`stall_before_kill`); the next mark is a quarter of critical_enter, and the
        // interval's ceiling bounds how late a rise of the stall is seen.
        if level == .warning, settings.stallBeforeKill != nil, available < threshold {
            threshold = settings.makingRoomFloor(ofTotal: total)
        }
        let headroom = available - threshold
        guard headroom > 0 else { return floor }
        let reach = Double(headroom) / Double(plannedGrowth(at: time, quiet: quiet))
        let longest = quiet ? quietCeiling : ceiling
        return min(longest, max(floor, .microseconds(Int64(min(reach / 2, 3600) * 1_000_000))))
    }

}
