/// One interface to the host's cgroups, whatever their layout.
///
/// `UnifiedDriver` serves pure cgroup v2 hosts; `HybridDriver` serves hosts with v1 memory and
/// freezer hierarchies, using a cgroup2 mount for freeze and kill where there is one.
/// `CgroupDrivers.make(layout:configuration:)` picks one per host.
public protocol CgroupDriver: Sendable {
    /// The layout the driver was made for.
    var layout: CgroupLayout { get }

    /// Creates appwarden's root group and enables the controllers its app groups need.
    ///
    /// Idempotent; `createGroup` calls it when it has not run yet.
    func prepare() async throws(CgroupError)

    /// The directories app `name`'s group has or would have, without touching the file system.
    func group(named name: String) -> AppGroup

    /// Creates app `name`'s group in every hierarchy the driver uses; an existing one is reused.
    func createGroup(named name: String) async throws(CgroupError) -> AppGroup

    /// Moves process `pid` into `group` in every hierarchy.
    func attach(_ pid: Int32, to group: AppGroup) async throws(CgroupError)

    /// Sets the group's memory limits.
    func setMemoryLimits(_ limits: MemoryLimits, of group: AppGroup) async throws(CgroupError)

    /// Sets the most tasks (processes and threads) the group may hold, through `pids.max`; nil
    /// removes the bound. Past it, `fork` and `clone` in the group fail with `EAGAIN`.
    ///
    /// - Throws: `CgroupError` with code `missingController` when the host has no pids controller.
    func setTasksMax(_ limit: Int?, of group: AppGroup) async throws(CgroupError)

    /// Where the app groups get their CPU controls on this host.
    var cpuController: CPUControllerSource { get }

    /// Gives the group its CPU controls (rule 13).
    ///
    /// - Throws: `CgroupError` with code `missingController` where the host has no CPU
    ///   controller for the app groups, or where `idle` is asked of a kernel without `cpu.idle`.
    func setCPU(_ controls: CPUControls, of group: AppGroup) async throws(CgroupError)

    /// The CPU time the group's tasks have used since it was made (cgroup2 `cpu.stat`
    /// `usage_usec`); nil where the host cannot tell.
    func cpuUsage(of group: AppGroup) async throws(CgroupError) -> Duration?

    /// Freezes the group and returns once the kernel confirms every task is frozen.
    ///
    /// - Throws: `CgroupError` with code `timeout` when the confirmation does not come in time.
    func freeze(_ group: AppGroup) async throws(CgroupError)

    /// Thaws the group.
    func thaw(_ group: AppGroup) async throws(CgroupError)

    /// Whether the kernel reports the group frozen.
    func isFrozen(_ group: AppGroup) async throws(CgroupError) -> Bool

    /// A new watch for the kernel's notices that groups were frozen or thawed; nil where the
    /// freezer gives none (cgroup v1's `freezer.state`): there only a look tells a group's state.
    func freezeNotices() -> FreezeNotices?

    /// Kills every process of the group and returns once it is empty.
    ///
    /// A group that has vanished counts as empty.
    func kill(_ group: AppGroup) async throws(CgroupError)

    /// Kills every process of the group as `kill(_:)` does, but waits at most `timeout` for the
    /// group to empty. With `releasingMemory`, also hands their memory back to the kernel with
    /// `process_mrelease(2)` right after SIGKILL, without waiting for their exit path; kernels
    /// without the call (before 5.15) only kill.
    ///
    /// - Throws: `CgroupError` with code `timeout` when processes are still in the group after
    ///   `timeout` (a process in uninterruptible sleep dies only when it wakes); they have
    ///   SIGKILL pending, and `processes(in:)` tells when they are gone.
    func kill(_ group: AppGroup, releasingMemory: Bool, waitingAtMost timeout: Duration) async throws(CgroupError)

    /// The processes in the group, in any hierarchy, without duplicates.
    func processes(in group: AppGroup) async throws(CgroupError) -> [Int32]

    /// Removes the group from every hierarchy; a group that is already gone is not an error.
    func remove(_ group: AppGroup) async throws(CgroupError)

    /// Removes appwarden's root group from every hierarchy once it holds no app groups; a root
    /// that is already gone is not an error.
    func removeRoot() async throws(CgroupError)

    /// The memory charged to the group.
    func memoryStatistics(of group: AppGroup) async throws(CgroupError) -> MemoryStatistics

    /// The group's memory pressure, where the host reports it per group.
    func memoryPressure(of group: AppGroup) async throws(CgroupError) -> PressureStall?

    /// How long the group's tasks have waited on memory or for a CPU, in total since the group
    /// began (the PSI `some` totals of `memory.pressure` and `cpu.pressure`): time its processes
    /// could not run. Nil where the host does not report pressure per group.
    func stall(of group: AppGroup) async throws(CgroupError) -> Duration?

    /// Pushes the (frozen) group's memory out to swap (`MemoryCompression`) and returns how
    /// much of what it is charged is in swap then, in bytes.
    ///
    /// - Throws: `CgroupError` with code `missingController` where the kernel offers no way.
    func compress(_ group: AppGroup) async throws(CgroupError) -> Int64
}

extension CgroupDriver {
    /// No notices, for drivers whose freezer gives none.
    public func freezeNotices() -> FreezeNotices? { nil }

    /// Compresses the group with `process_madvise(MADV_PAGEOUT)` on each of its processes, for
    /// drivers without a better way, and returns its swap from its memory statistics.
    public func compress(_ group: AppGroup) async throws(CgroupError) -> Int64 {
        _ = try MemoryCompression.pageOut(pids: try await processes(in: group))
        return Int64(clamping: try await memoryStatistics(of: group).swap)
    }

    /// Kills the group without releasing memory early and without a shorter wait, for drivers
    /// whose kill does not wait.
    public func kill(
        _ group: AppGroup, releasingMemory: Bool, waitingAtMost timeout: Duration
    ) async throws(CgroupError) {
        try await kill(group)
    }
}
