/// A kill by the kernel's OOM killer in an app's group, with the figures the runtime read from
/// the group (v2 `memory.events`, `memory.max` and `memory.peak`; v1 `memory.oom_control`,
/// `memory.failcnt`, `memory.limit_in_bytes` and `memory.max_usage_in_bytes`).
public struct OOMKill: Sendable, Hashable {
    /// The group's own limit, in bytes, when the kill happened because the group reached it;
    /// nil when the kernel killed for the device's memory (or a group above the app's).
    public var limit: Int64?
    /// The most memory the group held, in bytes, when known.
    public var peak: Int64?

    public init(limit: Int64?, peak: Int64? = nil) {
        self.limit = limit
        self.peak = peak
    }

    /// Whether the app reached its own limit (`memoryLimit`) rather than the device running out
    /// (`kernelOOMKill`).
    public var isAtOwnLimit: Bool { limit != nil }

    /// The termination reason the kill is journaled with.
    public var reason: TerminationReason { isAtOwnLimit ? .memoryLimit : .kernelOOMKill }

    /// What happened, in words, for the journal and `explain`.
    public var sentence: String {
        let peak = self.peak.map { " (peak \(DurationFormat.sizeString($0)))" } ?? ""
        if let limit {
            return "Killed by the kernel at its memory limit of \(DurationFormat.sizeString(limit))\(peak)."
        }
        return "Killed by the kernel's OOM killer because the device ran out of memory\(peak)."
    }
}
