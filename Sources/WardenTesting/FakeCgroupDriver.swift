import Synchronization
public import WardenCgroup
public import WardenCore
public import WardenRuntime

/// A cgroup driver without a kernel: groups are records, freezing sets a flag, killing ends
/// the group's simulated processes (through `FakeProcessLauncher`), and every call is recorded.
///
/// It is also the daemon's memory source: each app has a footprint the test sets, and with a
/// device memory set, what is available is that memory, less the reserve, less the footprints
/// of the apps whose processes are in their groups (frozen ones included). And it is the
/// daemon's memory signals, as the kernel's usage thresholds and PSI triggers would be: every
/// change of what is in memory, with a device memory set, tells the daemon to measure at once;
/// `killByOOM` plays the kernel's OOM killer in an app's group.
public final class FakeCgroupDriver: CgroupDriver, WardenMemorySource, MemorySignalSource, Sendable {
    /// What the driver was asked to do, in order.
    public enum Call: Sendable, Hashable {
        case prepare
        case create(String)
        case attach(Int32, String)
        case setMemoryLimits(String, MemoryLimits)
        case setTasksMax(String, Int?)
        case freeze(String)
        case thaw(String)
        case kill(String)
        case compress(String)
        case remove(String)
        case removeRoot
    }

    struct Group {
        var pids: [Int32] = []
        var isFrozen = false
        var limits: MemoryLimits?
        var tasksMax: Int?
        var oom = GroupOOMState(kills: 0, limitHits: 0, limit: nil, peak: nil)
        /// What compression moved of the app's footprint to swap.
        var swapped: Int64 = 0
        /// The group's memory stall that ended, in total, and the one under way (times on the clock).
        var stallEnded: Duration = .zero
        var stall: (start: Duration, end: Duration)?

        /// The group's memory stall in total at `now`.
        func stallTotal(at now: Duration) -> Duration {
            guard let stall else { return stallEnded }
            return stallEnded + (min(now, stall.end) - stall.start)
        }
    }

    struct State {
        var groups: [String: Group] = [:]
        var calls: [Call] = []
        var footprints: [String: Int64] = [:]
        /// The RAM each app's swapped part takes, where a test said so (`setFootprint`); else
        /// what the modelled swap keeps of it.
        var swappedInRAM: [String: Int64] = [:]
        var tracked: Set<String> = []
        var device: (memory: Int64, reserved: Int64)?
        var swap: (total: Int64, zramRatio: Double?)?
        var stall: Double?
        var scanOutcomes: [String: ScanOutcome] = [:]
        var onKill: (@Sendable ([Int32]) -> Void)?
        /// Bumped whenever what is in memory changes (processes in groups, footprints).
        var memoryChanges = 0
        /// Whether freezes wait for `releaseFreezes()`, as a freezer that takes its time would.
        var holdsFreezes = false
        var heldFreezes: [CheckedContinuation<Void, Never>] = []
        var holdsRemovals = false
        var heldRemovals: [CheckedContinuation<Void, Never>] = []
        var signal: (@Sendable (MemorySignal) -> Void)?
        /// The apps whose groups the daemon watches for OOM kills.
        var oomWatched: Set<String> = []
        /// How long each app's thaw stalls bringing back what compression pushed out; an app
        /// named here has its group's memory stall counted.
        var swapIn: [String: Duration] = [:]
        /// The time on the test's clock, for the stall counts.
        var now: (@Sendable () -> Duration)?
        /// The CPU controls each app's group was last given.
        var cpuControls: [String: CPUControls] = [:]
        /// The CPU time each app's groups used, at the rate `setCPUUse` set; counted only once
        /// `countCPU(now:)` gave the clock.
        var cpuTimes: [String: CPUTimeCount] = [:]
        /// The time on the test's clock for the CPU counts.
        var cpuNow: (@Sendable () -> Duration)?
    }

    let state = Mutex(State())
    public let layout: CgroupLayout

    /// Makes a driver with no groups and a layout that names no mount.
    public init() {
        layout = CgroupLayout(unifiedMountPoint: nil, unifiedMountRoot: "/", unifiedControllers: [], v1Hierarchies: [:])
    }

    // MARK: What the test sees and sets

    /// Every call so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// The names of the groups that exist.
    public var groupNames: [String] { state.withLock { $0.groups.keys.sorted() } }

    /// Whether app `name`'s group exists and is frozen.
    public func isFrozen(_ name: String) -> Bool {
        state.withLock { $0.groups[name]?.isFrozen ?? false }
    }

    /// The simulated processes in app `name`'s group.
    public func pids(of name: String) -> [Int32] {
        state.withLock { $0.groups[name]?.pids ?? [] }
    }

    /// The memory limits last set on app `name`'s group.
    public func limits(of name: String) -> MemoryLimits? {
        state.withLock { $0.groups[name]?.limits }
    }

    /// Sets what app `name`'s group is charged, in bytes (0 until set), and, if given, how much
    /// of it is in swap (as the kernel's reclaim would leave it).
    public func setFootprint(_ bytes: Int64, swapped: Int64? = nil, swappedInRAM: Int64? = nil, of name: String) {
        state.withLock {
            $0.footprints[name] = bytes
            if let swapped { $0.groups[name]?.swapped = min(max(0, swapped), bytes) }
            if swapped != nil || swappedInRAM != nil { $0.swappedInRAM[name] = swappedInRAM }
            $0.memoryChanges += 1
        }
        memoryChanged()
    }

    /// Tells the daemon to measure, as the kernel's notifications would, when the device's
    /// memory is modelled.
    private func memoryChanged() {
        let signal = state.withLock { $0.device == nil ? nil : $0.signal }
        signal?(.pressure("fake device memory changed"))
    }

    /// Plays the kernel's OOM killer in app `name`'s group: the group counts the kill (at its own
    /// limit when `atLimit`, with `peak` as the most it held) and every process of the group ends
    /// by SIGKILL, as with `memory.oom.group`; with `wholeGroup` false only the counters move and
    /// the daemon is told, as a v1 group whose main process lives on. Returns whether the group exists.
    @discardableResult
    public func killByOOM(_ name: String, atLimit: Bool, peak: Int64? = nil, wholeGroup: Bool = true) -> Bool {
        let found = state.withLock {
            state -> (
                pids: [Int32], handler: (@Sendable ([Int32]) -> Void)?, signal: (@Sendable (MemorySignal) -> Void)?,
                watched: Bool
            )? in
            guard var group = state.groups[name] else { return nil }
            group.oom.kills += 1
            if atLimit { group.oom.limitHits += 1 }
            group.oom.limit = group.limits?.max
            group.oom.peak = peak.map { UInt64(max(0, $0)) }
            let pids = wholeGroup ? group.pids : []
            if wholeGroup {
                group.pids = []
                group.swapped = 0
                if !pids.isEmpty { state.memoryChanges += 1 }
            }
            state.groups[name] = group
            return (pids, state.onKill, state.signal, state.oomWatched.contains(name))
        }
        guard let found else { return false }
        if !found.pids.isEmpty { found.handler?(found.pids) }
        if !wholeGroup, found.watched { found.signal?(.outOfMemory(app: name)) }
        if !found.pids.isEmpty { memoryChanged() }
        return true
    }

    /// Models a device of `memory` bytes of which `reserved` are not the apps'; without it the
    /// device's memory is unknown and no memory samples are taken. `signalling` false changes
    /// it as memory that crosses no threshold does: the daemon is not told, and sees it only
    /// when it measures.
    public func setDeviceMemory(_ memory: Int64, reserved: Int64 = 0, signalling: Bool = true) {
        state.withLock { $0.device = (memory, reserved) }
        if signalling { memoryChanged() }
    }

    /// Gives the modelled device `total` bytes of swap, compressed in RAM at `zramRatio` (nil:
    /// swap on a disk); compression moves apps' footprints there.
    public func setDeviceSwap(_ total: Int64, zramRatio: Double? = nil) {
        state.withLock { $0.swap = (total, zramRatio) }
        memoryChanged()
    }

    /// Sets the device's memory stall (PSI `full avg10`, percent) that swap figures report.
    public func setStall(_ percent: Double?) {
        state.withLock { $0.stall = percent }
        memoryChanged()
    }

    /// Makes the watchdog's scan of app `name` find `outcome`: `error` makes listing the group's
    /// processes fail, `background` makes the group look frozen, `foreground` is the truth.
    public func setScanOutcome(_ outcome: ScanOutcome, of name: String) {
        state.withLock { $0.scanOutcomes[name] = outcome }
    }

    /// How many times what is in memory has changed (processes came or went, footprints moved).
    public var memoryChanges: Int { state.withLock { $0.memoryChanges } }

    /// Freezes or thaws app `name`'s group behind the daemon's back.
    public func setFrozenBehindTheDaemon(_ frozen: Bool, name: String) {
        state.withLock { $0.groups[name]?.isFrozen = frozen }
    }

    // MARK: For the fake launcher

    /// Calls `handler` with the pids a `kill` ends.
    func onKill(_ handler: @escaping @Sendable ([Int32]) -> Void) {
        state.withLock { $0.onKill = handler }
    }

    /// Puts a launched process into its group (the group must exist).
    func place(_ pid: Int32, in name: String) throws(CgroupError) {
        try state.withLock { state throws(CgroupError) in
            guard state.groups[name] != nil else { throw Self.missing(name) }
            state.groups[name]?.pids.append(pid)
            state.memoryChanges += 1
        }
        memoryChanged()
    }

    /// Puts process `pid`, which an earlier daemon left running, into group `name`, made if need
    /// be, frozen when `frozen`.
    func takeOver(_ pid: Int32, in name: String, frozen: Bool) {
        state.withLock { state in
            if state.groups[name] == nil { state.groups[name] = Group() }
            state.groups[name]?.pids.append(pid)
            state.groups[name]?.isFrozen = frozen
            state.memoryChanges += 1
        }
        memoryChanged()
    }

    /// Takes an ended process out of whatever group holds it.
    func processEnded(_ pid: Int32) {
        let changed = state.withLock { state -> Bool in
            var changed = false
            for name in state.groups.keys where state.groups[name]?.pids.contains(pid) == true {
                state.groups[name]?.pids.removeAll { $0 == pid }
                // An app whose processes are all gone takes its swap along.
                if state.groups[name]?.pids.isEmpty == true { state.groups[name]?.swapped = 0 }
                state.memoryChanges += 1
                changed = true
            }
            return changed
        }
        if changed { memoryChanged() }
    }

    static func missing(_ name: String) -> CgroupError {
        CgroupError(code: .notFound, message: "The group of app \"\(name)\" does not exist.", cause: "fake driver")
    }

    // MARK: CgroupDriver

    public func prepare() async throws(CgroupError) {
        state.withLock { $0.calls.append(.prepare) }
    }

    public func group(named name: String) -> AppGroup {
        AppGroup(name: name)
    }

    public func createGroup(named name: String) async throws(CgroupError) -> AppGroup {
        state.withLock { state in
            state.calls.append(.create(name))
            if state.groups[name] == nil { state.groups[name] = Group() }
            if let now = state.cpuNow?() { state.cpuTimes[name, default: CPUTimeCount()].restart(at: now) }
        }
        return AppGroup(name: name)
    }

    public func attach(_ pid: Int32, to group: AppGroup) async throws(CgroupError) {
        state.withLock { $0.calls.append(.attach(pid, group.name)) }
        try place(pid, in: group.name)
    }

    public func setMemoryLimits(_ limits: MemoryLimits, of group: AppGroup) async throws(CgroupError) {
        try state.withLock { state throws(CgroupError) in
            state.calls.append(.setMemoryLimits(group.name, limits))
            guard state.groups[group.name] != nil else { throw Self.missing(group.name) }
            state.groups[group.name]?.limits = limits
        }
    }

    public func setTasksMax(_ limit: Int?, of group: AppGroup) async throws(CgroupError) {
        try state.withLock { state throws(CgroupError) in
            state.calls.append(.setTasksMax(group.name, limit))
            guard state.groups[group.name] != nil else { throw Self.missing(group.name) }
            state.groups[group.name]?.tasksMax = limit
        }
    }

    public func freeze(_ group: AppGroup) async throws(CgroupError) {
        state.withLock { $0.calls.append(.freeze(group.name)) }
        await withCheckedContinuation { (freezing: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state in
                if state.holdsFreezes { state.heldFreezes.append(freezing) }
                return state.holdsFreezes
            }
            if !held { freezing.resume() }
        }
        try state.withLock { state throws(CgroupError) in
            guard state.groups[group.name] != nil else { throw Self.missing(group.name) }
            state.groups[group.name]?.isFrozen = true
            if let now = state.cpuNow?() { state.cpuTimes[group.name]?.setRunning(false, at: now) }
        }
    }

    // MARK: CPU

    public var cpuController: CPUControllerSource { .unified }

    /// Records the controls; a group that does not exist is an error, as on a host.
    public func setCPU(_ controls: CPUControls, of group: AppGroup) async throws(CgroupError) {
        try state.withLock { state throws(CgroupError) in
            guard state.groups[group.name] != nil else { throw Self.missing(group.name) }
            state.cpuControls[group.name] = controls
        }
    }

    /// The CPU time app `name`'s group used at the rate `setCPUUse` gave; nil before `countCPU(now:)`.
    public func cpuUsage(of group: AppGroup) async throws(CgroupError) -> Duration? {
        state.withLock { state in
            guard let now = state.cpuNow?() else { return nil }
            return state.cpuTimes[group.name]?.total(at: now) ?? .zero
        }
    }

    /// The CPU controls app `name`'s group was last given; nil when none were.
    public func cpuControls(of name: String) -> CPUControls? {
        state.withLock { $0.cpuControls[name] }
    }

    /// Counts the CPU time of the apps' groups from now on, on the time `now` gives.
    public func countCPU(now: @escaping @Sendable () -> Duration) {
        state.withLock { $0.cpuNow = now }
    }

    /// From now on app `name`'s processes use `percent` of one CPU while they run and are not frozen.
    public func setCPUUse(_ percent: Int, of name: String) {
        state.withLock { state in
            guard let now = state.cpuNow?() else { return }
            state.cpuTimes[name, default: CPUTimeCount()].setPercent(percent, at: now)
        }
    }

    /// Makes every freeze from now on wait, with its call recorded and its group not yet
    /// frozen, until `releaseFreezes()`: the time a real freezer takes, stretched for a test.
    public func holdFreezes() {
        state.withLock { $0.holdsFreezes = true }
    }

    /// Lets the freezes that wait complete, and the next ones complete at once.
    public func releaseFreezes() {
        let held = state.withLock { state in
            state.holdsFreezes = false
            defer { state.heldFreezes.removeAll() }
            return state.heldFreezes
        }
        for freezing in held { freezing.resume() }
    }

    /// Thaws the group; one of an app with a swap-in time that compression left partly in swap
    /// brings it all back at once, stalled on memory for that time from now.
    public func thaw(_ group: AppGroup) async throws(CgroupError) {
        let broughtBack = try state.withLock { state throws(CgroupError) -> Bool in
            state.calls.append(.thaw(group.name))
            guard var found = state.groups[group.name] else { throw Self.missing(group.name) }
            found.isFrozen = false
            if let now = state.cpuNow?() { state.cpuTimes[group.name]?.setRunning(true, at: now) }
            var broughtBack = false
            if let swapIn = state.swapIn[group.name], swapIn > .zero, found.swapped > 0, let now = state.now?() {
                found.stallEnded = found.stallTotal(at: now)
                found.stall = (now, now + swapIn)
                found.swapped = 0
                state.memoryChanges += 1
                broughtBack = true
            }
            state.groups[group.name] = found
            return broughtBack
        }
        if broughtBack { memoryChanged() }
    }

    /// Gives app `name` a swap-in time: a thaw of its group while compression left some of it in
    /// swap stalls the group on memory for `swapIn` and brings its pages back; from now on its
    /// group's stall is counted (`stall(of:)`), on the time `now` gives.
    public func setSwapIn(_ swapIn: Duration, of name: String, now: @escaping @Sendable () -> Duration) {
        state.withLock {
            $0.swapIn[name] = swapIn
            $0.now = now
        }
    }

    /// How long app `name`'s group stays stalled on memory from now; zero when it is not.
    public func memoryStallRemaining(of name: String) -> Duration {
        state.withLock { state in
            guard let stall = state.groups[name]?.stall, let now = state.now?(), stall.end > now else { return .zero }
            return stall.end - now
        }
    }

    public func isFrozen(_ group: AppGroup) async throws(CgroupError) -> Bool {
        try state.withLock { state throws(CgroupError) in
            guard let found = state.groups[group.name] else { throw Self.missing(group.name) }
            if state.scanOutcomes[group.name] == .background { return true }
            return found.isFrozen
        }
    }

    /// Ends every simulated process of the group at once, as SIGKILL would, and returns with the
    /// group empty.
    public func kill(_ group: AppGroup) async throws(CgroupError) {
        let (pids, handler) = state.withLock { state -> ([Int32], (@Sendable ([Int32]) -> Void)?) in
            state.calls.append(.kill(group.name))
            let pids = state.groups[group.name]?.pids ?? []
            state.groups[group.name]?.pids = []
            state.groups[group.name]?.swapped = 0
            if !pids.isEmpty { state.memoryChanges += 1 }
            return (pids, state.onKill)
        }
        if !pids.isEmpty {
            handler?(pids)
            memoryChanged()
        }
    }

    public func processes(in group: AppGroup) async throws(CgroupError) -> [Int32] {
        try state.withLock { state throws(CgroupError) in
            if state.scanOutcomes[group.name] == .error {
                throw CgroupError(
                    code: .io, message: "The processes of app \"\(group.name)\" cannot be listed.", cause: "fake scan")
            }
            return state.groups[group.name]?.pids ?? []
        }
    }

    /// Makes every removal from now on wait, recorded, until `releaseRemoval()` lets the
    /// oldest go: a slow `rmdir`, stretched for a test.
    public func holdRemovals() {
        state.withLock { $0.holdsRemovals = true }
    }

    /// How many removals wait.
    public var heldRemovals: Int { state.withLock { $0.heldRemovals.count } }

    /// Lets the oldest waiting removal complete.
    public func releaseRemoval() {
        let oldest = state.withLock { state in
            state.heldRemovals.isEmpty ? nil : state.heldRemovals.removeFirst()
        }
        oldest?.resume()
    }

    /// Lets every waiting removal complete, and the next ones complete at once.
    public func releaseRemovals() {
        let held = state.withLock { state in
            state.holdsRemovals = false
            defer { state.heldRemovals.removeAll() }
            return state.heldRemovals
        }
        for removal in held { removal.resume() }
    }

    public func remove(_ group: AppGroup) async throws(CgroupError) {
        state.withLock { $0.calls.append(.remove(group.name)) }
        await withCheckedContinuation { (removing: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state in
                if state.holdsRemovals { state.heldRemovals.append(removing) }
                return state.holdsRemovals
            }
            if !held { removing.resume() }
        }
        try state.withLock { state throws(CgroupError) in
            if let found = state.groups[group.name], !found.pids.isEmpty {
                throw CgroupError(
                    code: .io, message: "The group of app \"\(group.name)\" still has processes.",
                    cause: "fake driver")
            }
            state.groups[group.name] = nil
        }
    }

    public func removeRoot() async throws(CgroupError) {
        state.withLock { $0.calls.append(.removeRoot) }
    }

    public func memoryStatistics(of group: AppGroup) async throws(CgroupError) -> MemoryStatistics {
        let bytes = state.withLock { UInt64(max(0, $0.footprints[group.name] ?? 0)) }
        return MemoryStatistics(current: bytes, anon: bytes, file: 0, shmem: 0, swap: 0, kernel: 0)
    }

    public func memoryPressure(of group: AppGroup) async throws(CgroupError) -> PressureStall? {
        nil
    }

    /// The group's stall, for an app given a swap-in time (`setSwapIn`); nil for others, as on a
    /// host that does not report pressure per group.
    public func stall(of group: AppGroup) async throws(CgroupError) -> Duration? {
        state.withLock { state -> Duration? in
            guard state.swapIn[group.name] != nil, let now = state.now?() else { return nil }
            return state.groups[group.name]?.stallTotal(at: now) ?? .zero
        }
    }

    // MARK: WardenMemorySource

    public func track(_ group: AppGroup) {
        state.withLock { _ = $0.tracked.insert(group.name) }
    }

    public func untrack(_ name: String) {
        state.withLock { _ = $0.tracked.remove(name) }
    }

    public func measurements(of names: [String]) -> [String: AppMemoryMeasurement] {
        state.withLock { state in
            var result: [String: AppMemoryMeasurement] = [:]
            for name in names where state.tracked.contains(name) {
                let footprint = state.footprints[name] ?? 0
                let swapped = min(state.groups[name]?.swapped ?? 0, footprint)
                result[name] = AppMemoryMeasurement(
                    footprint: footprint, swapped: swapped,
                    swappedInRAM: state.swappedInRAM[name].map { min($0, swapped) } ?? Self.swappedInRAM(swapped, state)
                )
            }
            return result
        }
    }

    public func swapFigures() -> SwapFigures? {
        state.withLock { state in
            guard let swap = state.swap, state.device != nil else { return nil }
            let (resident, swapped) = Self.memoryInGroups(state)
            return SwapFigures(
                free: max(0, swap.total - swapped), total: swap.total, swappable: resident,
                compressionRatio: swap.zramRatio, stallPercent: state.stall)
        }
    }

    public func swappedInRAM(_ swapped: Int64) -> Int64? {
        state.withLock { Self.swappedInRAM(swapped, $0) }
    }

    /// What `swapped` bytes take of RAM on the modelled swap: 1/ratio of them in a zram, none on
    /// a disk (or without swap, as the modelled device's memory counts them).
    private static func swappedInRAM(_ swapped: Int64, _ state: State) -> Int64 {
        state.swap?.zramRatio.map { Int64(Double(swapped) / $0) } ?? 0
    }

    /// What the groups with processes hold in RAM and in swap.
    private static func memoryInGroups(_ state: State) -> (resident: Int64, swapped: Int64) {
        var resident: Int64 = 0
        var swapped: Int64 = 0
        for (name, group) in state.groups where !group.pids.isEmpty {
            let footprint = state.footprints[name] ?? 0
            let inSwap = min(group.swapped, footprint)
            resident += footprint - inSwap
            swapped += inSwap
        }
        return (resident, swapped)
    }

    public func compress(_ group: AppGroup) async throws(CgroupError) -> Int64 {
        let swapped = try state.withLock { state throws(CgroupError) -> Int64 in
            state.calls.append(.compress(group.name))
            guard var found = state.groups[group.name] else { throw Self.missing(group.name) }
            guard let swap = state.swap else { return found.swapped }
            let (_, inSwap) = Self.memoryInGroups(state)
            let footprint = state.footprints[group.name] ?? 0
            let moved = max(0, min(swap.total - inSwap, footprint - found.swapped))
            found.swapped += moved
            state.groups[group.name] = found
            if moved > 0 { state.memoryChanges += 1 }
            return found.swapped
        }
        memoryChanged()
        return swapped
    }

    public func oomState(of name: String) -> GroupOOMState? {
        state.withLock { state in state.tracked.contains(name) ? state.groups[name]?.oom : nil }
    }

    // MARK: MemorySignalSource

    public func armDevice() -> [String] { ["fake device memory"] }

    public func armUsageThresholds(group: String, marks: [UInt64]) -> Bool { true }

    public func watch(app: String, group: AppGroup) {
        state.withLock { _ = $0.oomWatched.insert(app) }
    }

    public func unwatch(app: String) {
        state.withLock { _ = $0.oomWatched.remove(app) }
    }

    public func connect(_ signal: @escaping @Sendable (MemorySignal) -> Void) {
        state.withLock { $0.signal = signal }
    }

    /// Returns at once: the signals go out when the test changes what is in memory.
    public func run() async {}

    public func stop() {
        state.withLock { $0.signal = nil }
    }

    public func deviceMemory() -> (available: Int64, total: Int64)? {
        state.withLock { state in
            guard let device = state.device else { return nil }
            let (resident, swapped) = Self.memoryInGroups(state)
            let compressedCopies = state.swap?.zramRatio.map { Int64(Double(swapped) / $0) } ?? 0
            return (device.memory - device.reserved - resident - compressedCopies, device.memory)
        }
    }
}
