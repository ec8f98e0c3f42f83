import Logging
import WardenCgroup
import WardenCore

/// The daemon's side of the memory watch (`MemoryWatch`, whose plan is the core's): it carries
/// out the plan's steps and hands the core what was measured.
///
/// The device's available memory is measured as often as the headroom to the next threshold and
/// the growth seen recently require (`MemoryPollingSchedule`: 10 ms near a threshold and while
/// critical, up to 1 s when memory is plentiful, up to 5 s while every app is frozen or not
/// running), and at once when the kernel signals (a PSI trigger, a v1 pressure level or usage
/// threshold at one of the policy's marks). Every measurement goes to the core as a sample: the
/// level, and so any kill, follows from the measured memory against the policy's thresholds,
/// never from a signal alone, so that stall or an OOM kill inside one app's group under its own
/// limit is that app's event, not the device's.
extension WardenDaemon {
    /// Arms the device's signals and starts the plan; the first measurement follows at once
    /// (`boot`).
    func startMemoryWatch() {
        let armed = parts.signals.armDevice()
        logger.info(
            "Memory pressure signals: \(armed.isEmpty ? "none; the measurements alone detect pressure" : armed.joined(separator: "; ")).",
        )
        memoryWatch.plan.start(at: clock.now())
    }

    /// Whether nothing appwarden runs can grow: every app suspended (frozen) or not running
    /// (`Lifecycle.isQuiet`), every process watched, and not a dry run (where suspended apps
    /// are not frozen).
    var deviceIsQuiet: Bool {
        !options.dryRun && lifecycle.isQuiet && processes.table.everyProcessWatched()
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
            guard let running = processes.table.running[app], let kill = processes.oomKill(of: app) else { return }
            _ = await process(.oomKilled(app: app, launch: running.launch, kill: kill))
        }
    }

    /// Carries out what the plan has due by now: a measurement, the idle trim, a sweep of the
    /// running apps, a look at the suspended apps' groups.
    func memoryWatchIfDue() async {
        memoryWatch.plan.beginRound(at: clock.now())
        while let step = memoryWatch.plan.nextStep(quiet: deviceIsQuiet) {
            switch step {
            case .measure: await measure()
            case .trim: memoryWatch.trim(logger: logger)
            case .sweep(let checkingFreezer): await sweepApps(checkingFreezer: checkingFreezer)
            case .checkSuspended(let checkingFreezer): await checkSuspended(checkingFreezer: checkingFreezer)
            }
        }
    }

    /// Measures the device's memory and hands the core the sample: one call to the core decides
    /// the sample's events (the running apps' changed footprints first when the sample needs
    /// them), then each is processed in order; plans the next measurement.
    func measure() async {
        guard phase.isRunning else { return }
        memoryWatch.countFaultsFromNow()
        memoryWatch.plan.measurementBegins(quiet: deviceIsQuiet)
        guard let device = parts.memory.deviceMemory() else {
            memoryWatch.plan.deviceNotMeasured()
            return
        }
        memoryWatch.armUsageThresholds(
            in: parts.memory.deviceUsageGroup().map { usage in
                (usage.group, lifecycle.memoryBoundaries(total: usage.limit).map { UInt64(usage.limit - $0) })
            },
            signals: parts.signals, logger: logger)
        let swap = parts.memory.swapFigures()
        let time = clock.now()
        for event in memoryWatch.sample(of: device, swap: swap, at: time, memory: parts.memory, lifecycle: lifecycle) {
            _ = await process(event)
        }
        memoryWatch.plan.planNext(
            available: MemoryLevelTracker.effectiveAvailable(device.available, swap: swap), total: device.total,
            level: lifecycle.memoryLevel, settings: policy.memory, measuredAt: time, now: clock.now())
    }
}
