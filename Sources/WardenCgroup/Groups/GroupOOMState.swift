/// What a group's memory files say about OOM kills in it: how many of its processes the kernel's
/// OOM killer has killed, whether the group reached its own limit, the limit and the most it held.
///
/// cgroup v2: `memory.events` (`oom_kill`, and `oom` for the times the group's own limit was
/// reached with nothing left to reclaim), `memory.max` and `memory.peak` (Linux 5.19+). cgroup v1:
/// `memory.oom_control` (`oom_kill`, Linux 4.13+), `memory.failcnt` (the times usage hit the
/// limit), `memory.limit_in_bytes` and `memory.max_usage_in_bytes`.
public struct GroupOOMState: Sendable, Hashable {
    /// Processes of the group killed by the kernel's OOM killer, of any kind.
    public var kills: UInt64
    /// Times the group reached its own limit (v2 `oom`; v1 `failcnt`).
    public var limitHits: UInt64
    /// The group's hard limit in bytes; nil when it has none.
    public var limit: UInt64?
    /// The most memory the group held, in bytes, when the kernel reports it.
    public var peak: UInt64?

    public init(kills: UInt64, limitHits: UInt64, limit: UInt64?, peak: UInt64?) {
        self.kills = kills
        self.limitHits = limitHits
        self.limit = limit
        self.peak = peak
    }

    /// The largest value v1 writes for "no limit" (`PAGE_COUNTER_MAX` in bytes) is far above any
    /// device: anything from here up is no limit.
    static let v1Unlimited: UInt64 = 1 << 60

    /// Parses a v2 group's `memory.events`, `memory.max` and `memory.peak` texts (the peak may
    /// be missing on kernels before 5.19).
    public static func parseV2(events: String, max: String, peak: String?, path: String) throws(CgroupError)
        -> GroupOOMState
    {
        let values = try CgroupFileParser.keyedValues(events, path: path + "/memory.events")
        let limitText = max.trimmingWhitespace()
        return GroupOOMState(
            kills: values["oom_kill"] ?? 0, limitHits: values["oom"] ?? 0,
            limit: limitText == "max" ? nil : UInt64(limitText),
            peak: peak.flatMap { UInt64($0.trimmingWhitespace()) })
    }

    /// Parses a v1 group's `memory.oom_control`, `memory.failcnt`, `memory.limit_in_bytes` and
    /// `memory.max_usage_in_bytes` texts.
    public static func parseV1(
        oomControl: String, failcnt: String, limit: String, maxUsage: String?, path: String
    ) throws(CgroupError) -> GroupOOMState {
        let values = try CgroupFileParser.keyedValues(oomControl, path: path + "/memory.oom_control")
        let limit = UInt64(limit.trimmingWhitespace())
        return GroupOOMState(
            kills: values["oom_kill"] ?? 0,
            limitHits: UInt64(failcnt.trimmingWhitespace()) ?? 0,
            limit: limit.flatMap { $0 >= v1Unlimited ? nil : $0 },
            peak: maxUsage.flatMap { UInt64($0.trimmingWhitespace()) })
    }

    /// Reads the state of the group whose memory directory is `directory`: v1 when `isV1`,
    /// v2 otherwise; nil when the files cannot be read (the group is gone, or the kernel
    /// predates the counters).
    public static func read(directory: String, isV1: Bool) -> GroupOOMState? {
        func text(_ name: String) -> String? {
            try? Syscalls.readText(directory + "/" + name).get()
        }
        if isV1 {
            guard let control = text("memory.oom_control"), let failcnt = text("memory.failcnt"),
                let limit = text("memory.limit_in_bytes")
            else { return nil }
            return try? parseV1(
                oomControl: control, failcnt: failcnt, limit: limit, maxUsage: text("memory.max_usage_in_bytes"),
                path: directory)
        }
        guard let events = text("memory.events"), let max = text("memory.max") else { return nil }
        return try? parseV2(events: events, max: max, peak: text("memory.peak"), path: directory)
    }

    /// Whether the kernel's OOM killer has killed a process of the group since `earlier`.
    public func killedSince(_ earlier: GroupOOMState?) -> Bool {
        kills > (earlier?.kills ?? 0)
    }

    /// Whether the group reached its own limit since `earlier` (and has one).
    public func reachedLimitSince(_ earlier: GroupOOMState?) -> Bool {
        limit != nil && limitHits > (earlier?.limitHits ?? 0)
    }
}
