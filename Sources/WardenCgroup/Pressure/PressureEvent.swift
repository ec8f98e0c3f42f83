/// One sign of memory pressure, with when it was seen and where it came from.
public struct PressureEvent: Sendable, Hashable, CustomStringConvertible {
    /// Where the event came from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// A PSI trigger on a `memory.pressure` file fired: stalls exceeded the threshold in the window.
        case psi(path: String)
        /// The v1 `memory.pressure_level` notification of the group directory fired.
        case pressureLevel(group: String)
        /// The v1 `memory.usage_in_bytes` of the group directory crossed `bytes`, up or down.
        case usageThreshold(group: String, bytes: UInt64)
        /// The v1 OOM notification (`memory.oom_control`) of the group directory fired.
        case oomControl(group: String)
        /// The `oom_kill` counter in the v2 `memory.events` of the group directory went up.
        case memoryEvents(group: String)

        public var description: String {
            switch self {
            case .psi(let path): return "PSI trigger on \(path)"
            case .pressureLevel(let group): return "memory.pressure_level of \(group)"
            case .usageThreshold(let group, let bytes): return "usage of \(group) crossing \(bytes) bytes"
            case .oomControl(let group): return "OOM notification of \(group)"
            case .memoryEvents(let group): return "OOM kill in \(group)"
            }
        }
    }

    /// How severe the pressure is, in the kernel's words (`memory.pressure_level`).
    ///
    /// `medium` is where a warning is due, `critical` where something must be killed; the
    /// lifecycle core maps these onto its own `warning` and `critical`.
    public enum Level: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// No pressure.
        case normal
        /// Reclaim has started.
        case low
        /// Reclaim is costly: time to warn.
        case medium
        /// The system is about to run out, or the OOM killer acted.
        case critical

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .normal: return "normal"
            case .low: return "low"
            case .medium: return "medium"
            case .critical: return "critical"
            }
        }
    }

    /// Where the event came from.
    public var source: Source
    /// How severe it is.
    public var level: Level
    /// When the monitor saw it (monotonic, continues through suspend).
    public var time: ContinuousClock.Instant
    /// For `memoryEvents`: how many OOM kills happened since the previous event.
    public var oomKills: UInt64?

    /// Makes an event.
    public init(
        source: Source,
        level: Level,
        time: ContinuousClock.Instant,
        oomKills: UInt64? = nil
    ) {
        self.source = source
        self.level = level
        self.time = time
        self.oomKills = oomKills
    }

    public var description: String {
        var text = "\(level) from \(source)"
        if let oomKills { text += " (\(oomKills) OOM kills)" }
        return text
    }
}
