import Logging
import WardenCgroup
import WardenCore

/// The memory watch: it measures and hands the core facts; the core alone decides.
///
/// When to measure, sweep, look at the suspended apps and trim is the core's plan
/// (`MemoryWatchPlan`), and what a sample includes is the core's too: one call per sample
/// (`Lifecycle.sampleEvents`, `Lifecycle.eventsMeasuredAgain` after a kill) picks the apps to
/// measure, keeps the measurements that changed enough to tell and orders the events. This
/// component owns what the measurements need on the host: the v1 usage thresholds it armed, the
/// daemon's major faults when a measurement began (a kill for memory says how many it took
/// since, which should be none), the round of suspended apps looked at, and the code left
/// unlocked at start. The daemon hands the events to the core one by one (`Lifecycle.take`).
struct MemoryWatch {
    /// When to measure, sweep, look at the suspended apps and trim.
    var plan: MemoryWatchPlan
    /// The parts of the daemon's code and read-only data left unlocked at start
    /// (`DaemonMemory.lockTouchedPages`), let go of with the trim.
    var unlockedCode: [DaemonMemory.MappingRange] = []
    /// The v1 usage thresholds armed: the group and the usage marks.
    private var thresholds: (group: String, marks: [UInt64])?
    /// The marks the kernel refused (logged once, not tried again for the same marks).
    private var refusedMarks: [UInt64] = []
    /// The daemon's major page faults when the last measurement began (`DaemonMemory.majorFaults`).
    private var faultsAtMeasurement: Int?
    /// The place in the policy's declaration order of the last suspended app looked at
    /// (`Lifecycle.apps(in:)`): the next round goes on after it.
    private var lastSuspendedChecked: Int?

    init(plan: MemoryWatchPlan = MemoryWatchPlan()) {
        self.plan = plan
    }

    /// A measurement begins: a kill it leads to counts the daemon's major faults from here.
    mutating func countFaultsFromNow() {
        faultsAtMeasurement = DaemonMemory.majorFaults()
    }

    /// The daemon's major faults since the last measurement began (since now when none has).
    func faultsCountedFrom() -> Int {
        faultsAtMeasurement ?? DaemonMemory.majorFaults()
    }

    /// The events of one measurement of `device` for the core, in one call: the core measures the
    /// running apps with `memory` when the sample needs them (a sample that makes or keeps the
    /// level critical ranks the apps on fresh figures), keeps the footprints that changed and
    /// puts them before the sample (`Lifecycle.sampleEvents`). The plan records it.
    mutating func sample(
        of device: (available: Int64, total: Int64), swap: SwapFigures?, at time: Instant,
        memory: any WardenMemorySource, lifecycle: Lifecycle
    ) -> [LifecycleEvent] {
        plan.measured(available: MemoryLevelTracker.effectiveAvailable(device.available, swap: swap), at: time)
        return lifecycle.sampleEvents(available: device.available, total: device.total, swap: swap) {
            memory.measurements(of: $0)
        }
    }

    /// After a kill for memory (`MemoryWatchPlan.measuresAgain(after:)`): the group is empty (the
    /// driver waited), so the running apps and then the device are measured again, as events
    /// for the core, in one call (`Lifecycle.eventsMeasuredAgain`); a sample still critical
    /// kills the next victim.
    mutating func measureAgain(memory: any WardenMemorySource, lifecycle: Lifecycle) -> [LifecycleEvent] {
        // A next victim chosen by this measurement counts its own faults from here.
        countFaultsFromNow()
        return lifecycle.eventsMeasuredAgain(
            measuring: { memory.measurements(of: $0) },
            device: { memory.deviceMemory().map { ($0.available, $0.total, memory.swapFigures()) } })
    }

    /// The next round of at most `perRound` suspended apps to look at, of `all` (in declaration
    /// order), going on after the last one looked at, by its place: apps suspended or woken
    /// since move no other app's turn.
    mutating func suspendedRound(of all: [(place: Int, name: String)], perRound: Int) -> [String] {
        var round = all
        if all.count > perRound {
            let start = lastSuspendedChecked.flatMap { last in all.firstIndex { $0.place > last } } ?? 0
            round = (0..<perRound).map { all[(start + $0) % all.count] }
        }
        lastSuspendedChecked = round.last?.place
        return round.map(\.name)
    }

    /// Arms v1 usage thresholds at `marks` in the device's usage group (none where there is no
    /// such group), again when the group or the marks change; marks the kernel refused are not
    /// tried again.
    mutating func armUsageThresholds(
        in device: (group: String, marks: [UInt64])?, signals: any MemorySignalSource, logger: Logger
    ) {
        guard let device else {
            if let armed = thresholds {
                _ = signals.armUsageThresholds(group: armed.group, marks: [])
                thresholds = nil
            }
            return
        }
        if let armed = thresholds, armed.group == device.group, armed.marks == device.marks { return }
        if refusedMarks == device.marks { return }
        if signals.armUsageThresholds(group: device.group, marks: device.marks) {
            refusedMarks = []
            thresholds = device.marks.isEmpty ? nil : device
            logger.debug(
                "Memory usage thresholds armed.", metadata: ["group": "\(device.group)", "bytes": "\(device.marks)"])
        } else {
            refusedMarks = device.marks
            thresholds = nil
        }
    }

    /// Gives back free heap (`DaemonMemory.trimHeap`) and the code and read-only data left
    /// unlocked at start, which the quiet spell's own work mapped again (`DaemonMemory.shed`);
    /// what measuring and killing run stays locked (in `serve`).
    func trim(logger: Logger) {
        guard let outcome = DaemonMemory.trimHeap() else { return }
        let after = DaemonMemory.shed(unlockedCode)?.after ?? outcome.after
        logger.debug("Idle: resident memory \(outcome.before >> 20) MiB → \(after >> 20) MiB.")
    }

    /// Lets go of the pages only start-up ran (reading the policy and the options, opening the
    /// journal, making the servers), before the boot, the rehearsal and the lock touch what the
    /// daemon runs from then on; with `cuttingIntoPages`, the clean file mappings are cut into
    /// pages until the lock (`DaemonMemory.shedStartUpPages(cuttingIntoPages:)`), and the
    /// mappings cut are returned for `lockDaemonMemory(joining:logger:)`.
    @discardableResult
    static func shedStartUpPages(cuttingIntoPages: Bool = false, logger: Logger) -> [DaemonMemory.MappingRange] {
        guard let shed = DaemonMemory.shedStartUpPages(cuttingIntoPages: cuttingIntoPages) else { return [] }
        let cut = shed.cut.isEmpty ? "" : ", \(shed.cutPages) pages of \(shed.cut.count) mappings cut apart"
        logger.debug(
            "Start-up pages let go of: \(shed.mappings) file mappings, resident \(shed.residentBefore >> 20) MiB → \(shed.residentAfter >> 20) MiB\(cut)."
        )
        return shed.cut
    }

    /// Locks the daemon's pages in RAM once start-up is done (the peers' way); a refusal is said
    /// once in the log, and the daemon goes on unlocked.
    /// The mappings `cut` into pages at the last shed are joined first: the pages the boot
    /// and the rehearsal read are the pages mapped, and the lock keeps them.
    mutating func lockDaemonMemory(joining cut: [DaemonMemory.MappingRange] = [], logger: Logger) {
        DaemonMemory.joinPages(cut)
        switch DaemonMemory.lockTouchedPages() {
        case .success(let locked):
            unlockedCode = locked.unlocked
            let figures = DaemonMemory.figures()
            logger.info(
                "Memory locked in RAM: \((figures?.locked ?? 0) >> 20) MiB resident and locked (the code and data the boot and the rehearsed kill ran, \(locked.fileBytes >> 20) MiB, and the daemon's writable memory as it is touched), \((figures?.anonymous ?? 0) >> 20) MiB anonymous."
            )
        case .failure(let error):
            logger.warning(
                "Could not lock the daemon's memory in RAM (mlock): \(error); it may be swapped or evicted.")
        }
    }
}
