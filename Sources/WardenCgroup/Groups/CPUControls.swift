/// What an app's group is given of the processors (rule 13): a weight against the other app
/// groups, optionally an idle group, optionally a hard cap; and its I/O weight.
public struct CPUControls: Sendable, Hashable {
    /// The weight, on cgroup v2's scale (1...10000, 100 by default).
    public var weight: Int
    /// Whether the group runs only on cycles nobody else wants (cgroup v2 `cpu.idle`, Linux 5.15).
    public var idle: Bool
    /// The most the group may use, in percent of one CPU; nil for no cap.
    public var maxPercent: Int?
    /// The I/O weight, on cgroup v2's scale (1...10000, 100 by default); nil leaves it as it is.
    public var ioWeight: Int?

    public init(weight: Int, idle: Bool = false, maxPercent: Int? = nil, ioWeight: Int? = nil) {
        self.weight = weight
        self.idle = idle
        self.maxPercent = maxPercent
        self.ioWeight = ioWeight
    }

    /// The period the cap is written with (`cpu.max`, `cpu.cfs_period_us`), in microseconds.
    public static let periodMicroseconds = 100_000

    /// `cpu.weight`, within v2's bounds.
    public var v2Weight: Int { min(10_000, max(1, weight)) }

    /// `cpu.shares`: v2's default weight 100 is v1's default 1024 shares, within v1's bounds 2...262144.
    public var v1Shares: Int { min(262_144, max(2, weight * 1024 / 100)) }

    /// The quota per period for the cap, at least 1 ms (the kernel's smallest); nil for no cap.
    public var quotaMicroseconds: Int? {
        maxPercent.map { max(1000, $0 * Self.periodMicroseconds / 100) }
    }

    /// The text of `cpu.max`: `"QUOTA PERIOD"`, or `"max PERIOD"` without a cap.
    public var v2Max: String {
        "\(quotaMicroseconds.map(String.init) ?? "max") \(Self.periodMicroseconds)"
    }
}

/// Where app groups get their CPU controls on a host.
public enum CPUControllerSource: String, Sendable, Hashable {
    /// cgroup2's cpu controller: `cpu.weight`, `cpu.idle`, `cpu.max`.
    case unified
    /// The v1 `cpu` hierarchy: `cpu.shares`, `cpu.cfs_quota_us`.
    case v1
    /// Neither: every app shares the processors alike.
    case unavailable
}

extension CgroupFileParser {
    /// The `usage_usec` line of a cgroup2 `cpu.stat`: the CPU time the group's tasks used.
    ///
    /// - Throws: `CgroupError` with code `malformed` when the line is missing or not a number.
    public static func cpuUsage(_ text: String, path: String) throws(CgroupError) -> Duration {
        guard let micros = try keyedValues(text, path: path)["usage_usec"] else {
            throw .malformed("CPU statistics", path: path, detail: "no usage_usec line")
        }
        return .microseconds(Int64(clamping: micros))
    }
}
