import Logging
import WardenCgroup
import WardenCore

/// The memory watch: it measures and hands the core facts; the core alone decides.
///
/// It measures the device's available memory as often as the headroom to the next threshold and
/// the growth seen recently require (`MemoryPollingSchedule`: 10 ms near a threshold and while
/// critical, up to 1 s when memory is plentiful, up to 5 s while every app is frozen or not
/// running), and at once when the kernel signals (a PSI trigger, a v1 pressure level or usage
/// threshold at one of the policy's marks). Every measurement goes to the core as a sample: the
/// level, and so any kill, follows from the measured memory against the policy's thresholds,
/// never from a signal alone, so that stall or an OOM kill inside one app's group under its own
/// limit is that app's event, not the device's. Before a sample that makes or keeps the level
/// critical, the running apps are measured, so that the killer ranks them on fresh figures
/// (suspended apps are measured when frozen: a frozen app cannot grow).
extension WardenDaemon {
    /// Arms the device's signals; the sweeps of the running apps start one interval from now. The
    /// first measurement follows at once (`boot`).
    func startMemoryWatch() {
        let armed = parts.signals.armDevice()
        logger.info(
            "Memory pressure signals: \(armed.isEmpty ? "none; the measurements alone detect pressure" : armed.joined(separator: "; ")).",
        )
        let now = parts.clock.elapsed()
        memoryWatch.nextMeasurement = now
        memoryWatch.nextSweep = now + options.sampleInterval
        memoryWatch.nextSuspendedCheck = now + suspendedCheckInterval
    }

    /// How often suspended apps' groups are checked for having been thawed behind appwarden's back.
    var suspendedCheckInterval: Duration { options.sampleInterval * options.suspendedSampleSweeps }

    /// Whether nothing appwarden runs can grow: every app suspended (frozen) or not running
    /// (`Lifecycle.isQuiet`), every process watched, and not a dry run (where suspended apps
    /// are not frozen).
    var deviceIsQuiet: Bool {
        !options.dryRun && lifecycle.isQuiet && processes.everyProcessWatched()
    }

    /// A kernel signal: pressure makes the watch measure now; an OOM kill in an app's group
    /// makes it read that group's counters.
    func memorySignal(_ signal: MemorySignal) async {
        guard phase.isRunning else { return }
        switch signal {
        case .pressure(let source):
            logger.debug("Memory pressure signalled by \(source): measuring now.")
            await measure()
        case .outOfMemory(let app):
            await checkOOMKills(of: app)
        }
    }

    /// Runs what the watch has due by now: a measurement, a sweep of the running apps, a check
    /// of the suspended apps' groups, and the idle trim.
    ///
    /// While an app runs, the measurement and the sweep share one period (`sampleInterval` at
    /// most) and, with this, one wake-up: whichever is due brings the other forward when that one
    /// is due within half a sweep interval. A measurement then comes only earlier; a sweep keeps
    /// its grid, one per interval.
    func memoryWatchIfDue() async {
        let now = parts.clock.elapsed()
        let soon = now + options.sampleInterval / 2
        let sweeping = !deviceIsQuiet
        let sweepDue = sweeping && memoryWatch.nextSweep.map { $0 <= now } == true
        var measurementDue = memoryWatch.nextMeasurement.map { $0 <= now } == true
        measurementDue = measurementDue || (sweepDue && memoryWatch.nextMeasurement.map { $0 <= soon } == true)
        if measurementDue {
            await measure()
        }
        let quiet = deviceIsQuiet
        if quiet, !memoryWatch.trimmed, now - memoryWatch.lastEvent >= Self.idleBeforeTrim {
            trimResidentMemory()
        }
        if !quiet, let next = memoryWatch.nextSweep, next <= now || (measurementDue && next <= soon) {
            memoryWatch.nextSweep = max(next + options.sampleInterval, now + .milliseconds(1))
            await sweepApps()
        }
        if let next = memoryWatch.nextSuspendedCheck, next <= now {
            memoryWatch.nextSuspendedCheck = max(next + suspendedCheckInterval, now + .milliseconds(1))
            await reconcileFreezer(includingSuspended: true)
        }
    }

    /// Measures the device's memory and hands the core the sample (the running apps measured
    /// first when the level is or becomes critical); plans the next measurement.
    func measure() async {
        guard phase.isRunning else { return }
        memoryWatch.faultsAtMeasurement = DaemonMemory.majorFaults()
        let quiet = deviceIsQuiet
        memoryWatch.quiet = quiet
        guard let device = parts.memory.deviceMemory() else {
            memoryWatch.nextMeasurement = nil
            return
        }
        armUsageThresholds(total: device.total)
        let swap = parts.memory.swapFigures()
        let effective = MemoryLevelTracker.effectiveAvailable(device.available, swap: swap)
        let time = now()
        memoryWatch.schedule.record(available: effective, at: time)
        if lifecycle.memoryLevel(afterSampleOf: device.available, total: device.total, swap: swap) == .critical {
            for event in measureRunningApps() { _ = await process(event) }
        }
        _ = await process(.memorySample(available: device.available, total: device.total, swap: swap))
        let wait = memoryWatch.schedule.interval(
            available: effective, total: device.total, level: lifecycle.memoryLevel, settings: policy.memory,
            quiet: quiet, at: time)
        memoryWatch.nextMeasurement = parts.clock.elapsed() + max(wait, .milliseconds(1))
    }

    /// The footprints of the running apps (not the suspended ones) that changed, as events for
    /// the core.
    func measureRunningApps() -> [LifecycleEvent] {
        footprintEvents(of: lifecycle.runningApps(includingSuspended: false))
    }

    /// The footprints of the apps `names` that changed, as events for the core.
    func footprintEvents(of names: [String]) -> [LifecycleEvent] {
        parts.memory.measurements(of: names).sorted { $0.key < $1.key }.compactMap { name, measurement in
            Self.footprintEvent(name, measurement, known: lifecycle.footprint(of: name))
        }
    }

    /// The event that tells the core of `measurement`: when the footprint changed, or when the
    /// part in swap moved by `swappedChange` or more (the kernel swapping a frozen app out, a
    /// thawed app bringing its pages back), which a wake's cost and `status` read; nil otherwise.
    static func footprintEvent(
        _ app: String, _ measurement: AppMemoryMeasurement, known: (bytes: Int64, swapped: Int64, swappedInRAM: Int64)?
    ) -> LifecycleEvent? {
        let swappedMoved = known.map { abs($0.swapped - measurement.swapped) >= swappedChange } ?? true
        // What the swapped part takes of RAM follows the zram's compression, which drifts.
        let inRAMMoved =
            known.map { known in
                measurement.swappedInRAM.map { abs(known.swappedInRAM - $0) >= swappedChange } ?? false
            } ?? true
        guard known?.bytes != measurement.footprint || swappedMoved || inRAMMoved else { return nil }
        return .footprint(
            app: app, bytes: measurement.footprint, swapped: measurement.swapped,
            swappedInRAM: measurement.swappedInRAM)
    }

    /// How far an app's part in swap moves before the core is told: a MiB.
    static let swappedChange: Int64 = 1 << 20

    /// After a kill for memory: the group is empty (the driver waited), so the running apps and
    /// the device are measured again, and a sample that is still critical kills the next victim.
    func remeasure() -> [LifecycleEvent] {
        // A next victim chosen by this measurement counts its own faults from here.
        memoryWatch.faultsAtMeasurement = DaemonMemory.majorFaults()
        var events = measureRunningApps()
        if let device = parts.memory.deviceMemory() {
            events.append(
                .memorySample(available: device.available, total: device.total, swap: parts.memory.swapFigures()))
        }
        return events
    }

    /// Arms v1 usage thresholds at the policy's marks (device limit − each boundary), again when
    /// the limit or the policy's thresholds change.
    private func armUsageThresholds(total: Int64) {
        guard let device = parts.memory.deviceUsageGroup() else {
            if memoryWatch.thresholds != nil {
                _ = parts.signals.armUsageThresholds(group: memoryWatch.thresholds!.group, marks: [])
                memoryWatch.thresholds = nil
            }
            return
        }
        let marks = lifecycle.memoryBoundaries(total: device.limit).map { UInt64(device.limit - $0) }
        if let armed = memoryWatch.thresholds, armed.group == device.group, armed.marks == marks { return }
        if memoryWatch.refusedMarks == marks { return }
        if parts.signals.armUsageThresholds(group: device.group, marks: marks) {
            memoryWatch.refusedMarks = []
            memoryWatch.thresholds = marks.isEmpty ? nil : (device.group, marks)
            logger.debug("Memory usage thresholds armed.", metadata: ["group": "\(device.group)", "bytes": "\(marks)"])
        } else {
            memoryWatch.refusedMarks = marks
            memoryWatch.thresholds = nil
        }
    }

    /// The kernel's OOM killer acted in the app's group while its main process runs: when the
    /// group's counters say a process of it was killed, the core terminates the app (and the
    /// rest of the group with it).
    func checkOOMKills(of app: String) async {
        guard let running = processes.running[app], let kill = oomKill(of: app) else { return }
        _ = await process(.oomKilled(app: app, launch: running.launch, kill: kill))
    }

    /// The OOM kill the app's group counted since its launch, with the figures the journal
    /// gives; nil when there was none. Taken once: the counters are the new baseline.
    func oomKill(of app: String) -> OOMKill? {
        guard let state = parts.memory.oomState(of: app) else { return nil }
        let baseline = processes.oomBaselines[app] ?? nil
        guard state.killedSince(baseline) else { return nil }
        processes.oomBaselines[app] = state
        return OOMKill(
            limit: state.reachedLimitSince(baseline) ? state.limit.map { Int64(clamping: $0) } : nil,
            peak: state.peak.map { Int64(clamping: $0) })
    }

    /// After an event: when the device stops being quiet (an app opened, thawed or launched),
    /// the watch, which may be sleeping for seconds, measures at once and sweeps from then on.
    func memoryWatchAfterEvent(_ event: LifecycleEvent) {
        guard !Self.isMeasurement(event) else { return }
        memoryWatch.lastEvent = parts.clock.elapsed()
        memoryWatch.trimmed = false
        guard memoryWatch.quiet, !deviceIsQuiet else { return }
        memoryWatch.quiet = false
        if memoryWatch.nextMeasurement != nil { memoryWatch.nextMeasurement = parts.clock.elapsed() }
    }

    /// How long the device stays quiet, with no event but measurements, before the daemon gives
    /// back the memory it does not use.
    static let idleBeforeTrim = Duration.seconds(5)

    /// Gives back free heap, once per quiet spell (`DaemonMemory.trimHeap`), and the code and
    /// read-only data left unlocked at start, which the quiet spell's own work mapped again
    /// (`DaemonMemory.shed`); what measuring and killing run stays locked (in `serve`).
    private func trimResidentMemory() {
        memoryWatch.trimmed = true
        guard let outcome = DaemonMemory.trimHeap() else { return }
        let after = DaemonMemory.shed(memoryWatch.unlockedCode)?.after ?? outcome.after
        logger.debug("Idle: resident memory \(outcome.before >> 20) MiB → \(after >> 20) MiB.")
    }
}
