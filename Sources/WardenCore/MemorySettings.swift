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
