/// What the runtime writes to an app's group for its CPU class (rule 13).
///
/// On cgroup v2 it becomes `cpu.weight`, `cpu.idle`, `cpu.max` and `io.weight` (with BFQ's
/// `io.bfq.weight`); on the v1 `cpu` hierarchy `cpu.shares` and `cpu.cfs_quota_us`
/// (`WardenCgroup.CPUControls` says how).
public struct CPUControl: Sendable, Hashable, Codable {
    /// The group's weight against the other app groups, 1...10000 (cgroup v2's range).
    public var weight: Int
    /// Whether the group runs only on cycles nobody else wants (cgroup v2 `cpu.idle`, Linux 5.15).
    public var idle: Bool
    /// The most the group may use, in percent of one CPU (100 is a whole core); nil for no cap.
    public var maxPercent: Int?
    /// The group's I/O weight against the other app groups, 1...10000 (cgroup v2 `io.weight`);
    /// nil leaves the group's I/O weight as it is.
    public var ioWeight: Int?

    public init(weight: Int, idle: Bool = false, maxPercent: Int? = nil, ioWeight: Int? = nil) {
        self.weight = weight
        self.idle = idle
        self.maxPercent = maxPercent
        self.ioWeight = ioWeight
    }
}
