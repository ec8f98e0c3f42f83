/// `[cpu]` (and `[apps.NAME.cpu]`): rule 13, the CPU by state and the background CPU budget.
///
/// The defaults serve the foreground first without wasting a cycle: a foreground app's weight is
/// 10,000 times a background app's, so a busy foreground app keeps more than 90 % of a core beside
/// up to a thousand busy background apps, and background apps get every cycle it leaves (no cap).
/// The budget is iOS's: a background app that keeps above 80 % of one CPU over 60 s is warned, and
/// terminated (`cpuLimit`) if it goes on for another window. The I/O weights follow the same
/// classes where the kernel honours them (a drive under BFQ or `io.cost`): 1,000 against 10, and
/// 100 for an app holding an activity.
public struct CPUSettings: Sendable, Equatable {
    /// The weight of foreground apps (`foreground_weight`, 10000; 1...10000).
    public var foregroundWeight: Int
    /// The weight of background apps (`background_weight`, 1; 1...10000).
    public var backgroundWeight: Int
    /// The weight of background apps holding an activity (`activity_weight`, 100; 1...10000).
    /// Neither `background_idle` nor `background_max` applies to them.
    public var activityWeight: Int
    /// Whether background apps run only on idle cycles (`background_idle`, false; cgroup v2 `cpu.idle`).
    public var backgroundIdle: Bool
    /// A hard cap on each background app, in percent of one CPU (`background_max`, none).
    public var backgroundMaxPercent: Int?
    /// The background CPU budget, in percent of one CPU (`background_limit`, 80); nil turns it off.
    public var backgroundLimitPercent: Int?
    /// The window the budget is measured over (`background_limit_window`, 60 s).
    public var backgroundLimitWindow: Duration
    /// The I/O weight of foreground apps (`foreground_io_weight`, 1000; 1...10000).
    public var foregroundIOWeight: Int
    /// The I/O weight of background apps (`background_io_weight`, 10; 1...10000).
    public var backgroundIOWeight: Int
    /// The I/O weight of background apps holding an activity (`activity_io_weight`, 100; 1...10000).
    public var activityIOWeight: Int

    /// The most weight, as cgroup v2's `cpu.weight` allows.
    public static let largestWeight = 10_000

    public init(
        foregroundWeight: Int = 10_000,
        backgroundWeight: Int = 1,
        activityWeight: Int = 100,
        backgroundIdle: Bool = false,
        backgroundMaxPercent: Int? = nil,
        backgroundLimitPercent: Int? = 80,
        backgroundLimitWindow: Duration = .seconds(60),
        foregroundIOWeight: Int = 1000,
        backgroundIOWeight: Int = 10,
        activityIOWeight: Int = 100
    ) {
        self.foregroundWeight = foregroundWeight
        self.backgroundWeight = backgroundWeight
        self.activityWeight = activityWeight
        self.backgroundIdle = backgroundIdle
        self.backgroundMaxPercent = backgroundMaxPercent
        self.backgroundLimitPercent = backgroundLimitPercent
        self.backgroundLimitWindow = backgroundLimitWindow
        self.foregroundIOWeight = foregroundIOWeight
        self.backgroundIOWeight = backgroundIOWeight
        self.activityIOWeight = activityIOWeight
    }

    /// What the group of an app in `cpuClass` is given.
    public func control(for cpuClass: CPUClass) -> CPUControl {
        switch cpuClass {
        case .foreground: CPUControl(weight: foregroundWeight, ioWeight: foregroundIOWeight)
        case .background:
            CPUControl(
                weight: backgroundWeight, idle: backgroundIdle, maxPercent: backgroundMaxPercent,
                ioWeight: backgroundIOWeight)
        case .activity: CPUControl(weight: activityWeight, ioWeight: activityIOWeight)
        }
    }
}
