/// The CPU time of a simulated app's group: it runs at `percent` of one CPU whenever it runs
/// (not frozen), as the scenario's `cpu` steps say. The simulator and the daemon's virtual-time
/// test bed count it alike, so both answer `LifecycleAction.measureCPU` with the same figure.
public struct CPUTimeCount: Sendable, Equatable {
    /// The time counted up to `mark`.
    private var counted: Duration = .zero
    /// Since when the group has been running at `percent`; nil while it does not run.
    private var mark: Duration?
    /// The rate it runs at, in percent of one CPU.
    public private(set) var percent: Int = 0

    public init() {}

    /// The CPU time used in all at `now` (a time since the clock's origin).
    public func total(at now: Duration) -> Duration {
        guard let mark, now > mark else { return counted }
        return counted + (now - mark) * percent / 100
    }

    /// The group starts or stops running at `now` (a spawn or a thaw; a freeze or an end).
    public mutating func setRunning(_ running: Bool, at now: Duration) {
        counted = total(at: now)
        mark = running ? now : nil
    }

    /// From `now` on the group runs at `percent` of one CPU while it runs.
    public mutating func setPercent(_ percent: Int, at now: Duration) {
        counted = total(at: now)
        if mark != nil { mark = now }
        self.percent = max(0, percent)
    }

    /// A new launch: nothing used yet, running from `now`, at the rate set before.
    public mutating func restart(at now: Duration) {
        counted = .zero
        mark = now
    }
}
