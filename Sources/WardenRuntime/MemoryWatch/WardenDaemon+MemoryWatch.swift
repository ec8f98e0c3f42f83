import Logging
import WardenCgroup
import WardenCore

/// What the memory watch keeps between measurements: the polling schedule, the v1 usage
/// thresholds armed and the task that measures.
struct MemoryWatchState {
    /// How soon to measure again (the rule lives in the core).
    var schedule = MemoryPollingSchedule()
    /// The task that sleeps until the next measurement; replaced to measure sooner.
    var poller: Task<Void, Never>?
    /// When the poller wakes next, since the clock's origin.
    var due: Duration?
    /// The v1 usage-threshold notifications and the usage marks they were armed at.
    var thresholds: (monitor: PressureMonitor, group: String, marks: [UInt64])?
    /// Whether arming the usage thresholds failed (logged once, not retried for the same marks).
    var refusedMarks: [UInt64] = []
    /// The device size and thresholds the usage thresholds were last looked at for.
    var armedFor: (total: Int64, settings: MemorySettings)?
    /// The PSI trigger on the whole device's memory (`/proc/pressure/memory`).
    var devicePressure: PressureMonitor?
    /// When the next sweep of the apps is due, since the clock's origin: the poller's wakes
    /// carry the sweeps, so that an idle daemon wakes once a second, not twice.
    var nextSweep: Duration?
    /// When suspended apps are next measured and their freezer checked, since the origin.
    var nextSuspendedCheck: Duration?
    /// Whether the device was quiet (`WardenDaemon.deviceIsQuiet`) at the last measurement.
    var quiet = false
    /// When the last event other than a sample was handled, since the clock's origin.
    var lastEvent: Duration = .zero
    /// Whether the daemon's memory was trimmed since that event (`ResidentMemoryTrim`).
    var trimmed = false
}

/// What one measurement of the device found and did.
struct DeviceMeasurement {
    /// How long to wait before the next measurement.
    var wait: Duration
    /// The device's memory, when it could be read.
    var device: (available: Int64, total: Int64)?
    /// The level the core is at or about to be at after this measurement.
    var level: PressureLevel
    /// Whether the sample went to the core.
    var passedOn: Bool
    /// Whether an event was queued or being carried out.
    var busy: Bool
}

/// Measuring the device's memory between sweeps: as often as the headroom to the next
/// threshold and the growth seen recently require (10 ms near a threshold and while critical,
/// up to 1 s when memory is plentiful), and at once when a v1 usage threshold at one of the
/// policy's marks is crossed or a PSI trigger (the whole device's, or appwarden's root
/// group's) fires. A measurement goes to the core only when it would change the
/// level, or while memory is critical (each one then kills a victim, as each sweep does).
extension WardenDaemon {
    /// Starts the memory watch, where the memory source reads kept-open files.
    func startMemoryWatch() {
        guard memory.measuresDeviceBetweenSweeps else { return }
        armDevicePressure()
        memoryWatch.nextSweep = clock.elapsed() + options.sampleInterval
        memoryWatch.nextSuspendedCheck = clock.elapsed() + suspendedCheckInterval
        schedulePoll(after: .zero)
    }

    /// The whole device's PSI trigger as the kernel accepted it; nil when none is armed.
    var devicePressureTrigger: PressureMonitor.Source? { memoryWatch.devicePressure?.armed.first }

    /// The whole device's PSI file, which counts stalls in every group, appwarden's included.
    static let devicePressurePath = "/proc/pressure/memory"

    /// Arms a PSI trigger on the whole device's memory with the shortest window the kernel
    /// accepts (500 ms, else 1 s, else 2 s), the stall at the same share of the window as
    /// `pressureStall` of 1 s; each event makes the memory watch measure at once. A kernel
    /// without PSI leaves the polling alone, which is logged.
    private func armDevicePressure() {
        let window = Duration.milliseconds(500)
        let source = PressureMonitor.Source.psi(
            path: Self.devicePressurePath, kind: .some, stall: options.pressureStall * (window / .seconds(1)),
            window: window, level: .medium)
        let monitor: PressureMonitor
        do {
            monitor = try PressureMonitor.start([source])
        } catch {
            logger.info("Whole-device memory pressure not watched: \(error)")
            return
        }
        memoryWatch.devicePressure = monitor
        logger.info("Whole-device memory pressure watched: \(monitor.armed.map(Self.describe).joined()).")
        loops.append(
            Task { [weak self] in
                for await _ in monitor {
                    await self?.measureNow()
                }
            })
    }

    /// Stops the poller and the usage-threshold notifications.
    func stopMemoryWatch() {
        memoryWatch.poller?.cancel()
        memoryWatch.poller = nil
        memoryWatch.due = nil
        memoryWatch.nextSweep = nil
        memoryWatch.nextSuspendedCheck = nil
        wakes["memory"] = nil
        memoryWatch.thresholds?.monitor.stop()
        memoryWatch.thresholds = nil
        memoryWatch.armedFor = nil
        memoryWatch.devicePressure?.stop()
        memoryWatch.devicePressure = nil
    }

    /// (Re)starts the poller so that it measures `delay` from now.
    private func schedulePoll(after delay: Duration) {
        guard !isStopped else { return }
        let due = clock.elapsed() + delay
        if let current = memoryWatch.due, current <= due, memoryWatch.poller != nil { return }
        memoryWatch.poller?.cancel()
        memoryWatch.due = due
        wakes["memory"] = due
        let clock = clock
        memoryWatch.poller = Task { [weak self] in
            var next = due
            while !Task.isCancelled {
                try? await clock.sleep(untilElapsed: next)
                guard !Task.isCancelled, let self else { return }
                guard let wait = await self.watch() else { return }
                next = clock.elapsed() + wait
                await self.pollScheduled(at: next)
            }
        }
    }

    private func pollScheduled(at due: Duration) {
        guard memoryWatch.poller != nil else { return }
        memoryWatch.due = due
        wakes["memory"] = due
    }

    /// Whether nothing appwarden runs can grow: every app suspended (frozen) or not running
    /// (`Lifecycle.isQuiet`), every process watched, and not a dry run (where suspended apps
    /// are not frozen).
    var deviceIsQuiet: Bool {
        !options.dryRun && lifecycle.isQuiet && processes.running.values.allSatisfy(\.isWatched)
    }

    /// How often suspended apps' groups are checked for having been thawed behind appwarden's back.
    private var suspendedCheckInterval: Duration { options.sampleInterval * options.suspendedSampleSweeps }

    /// One wake of the poller: measures the device and, when due, sweeps the running apps
    /// (every `sampleInterval` unless the device is quiet) and checks the suspended apps' groups
    /// (every `suspendedSampleSweeps` intervals), passing on the sample the sweep used to take
    /// (worth it only at warning or critical, where each sample warns apps again or kills).
    /// Returns how long to wait; nil once the daemon stopped.
    private func watch() async -> Duration? {
        let quiet = deviceIsQuiet
        guard let measurement = measureDevice(quiet: quiet) else { return nil }
        if quiet, !memoryWatch.trimmed, clock.elapsed() - memoryWatch.lastEvent >= Self.idleBeforeTrim {
            trimResidentMemory()
        }
        guard let nextSweep = memoryWatch.nextSweep, let nextCheck = memoryWatch.nextSuspendedCheck else {
            return measurement.wait
        }
        let now = clock.elapsed()
        let sweepDue = !quiet && now >= nextSweep
        let checkDue = now >= nextCheck
        guard sweepDue || checkDue else { return untilSweep(measurement.wait) }
        if sweepDue { memoryWatch.nextSweep = max(nextSweep + options.sampleInterval, now) }
        if checkDue { memoryWatch.nextSuspendedCheck = max(nextCheck + suspendedCheckInterval, now) }
        // Suspended apps are measured when frozen and before every kill, not here: a frozen app
        // cannot grow. Their groups are only checked for having been thawed behind appwarden's back.
        if sweepDue { await sweepApps(includingSuspended: false) }
        if checkDue { await reconcileFreezer(includingSuspended: true) }
        if let device = measurement.device, !measurement.passedOn, !measurement.busy, measurement.level != .normal {
            submit(.memorySample(available: device.available, total: device.total))
        }
        return untilSweep(measurement.wait)
    }

    /// `wait`, or less if the next sweep (none while quiet) or suspended check is due sooner.
    private func untilSweep(_ wait: Duration) -> Duration {
        let now = clock.elapsed()
        var wait = wait
        if !memoryWatch.quiet, let nextSweep = memoryWatch.nextSweep { wait = min(wait, nextSweep - now) }
        if let nextCheck = memoryWatch.nextSuspendedCheck { wait = min(wait, nextCheck - now) }
        return max(.zero, wait)
    }

    /// How long the device stays quiet, with no event but samples, before the daemon gives back
    /// the memory it does not use.
    static let idleBeforeTrim = Duration.seconds(5)

    /// Gives back free heap and the mappings of code start-up and past work touched, once per
    /// quiet spell (`ResidentMemoryTrim`).
    private func trimResidentMemory() {
        memoryWatch.trimmed = true
        guard let outcome = ResidentMemoryTrim.trim() else { return }
        logger.debug(
            "Idle: resident memory \(outcome.before >> 20) MiB → \(outcome.after >> 20) MiB (\(outcome.mappings) file mappings let go)."
        )
    }

    /// After an event: when the device stops being quiet (an app opened, thawed or launched),
    /// the poller, which may be sleeping for seconds, measures at once and sweeps from then on.
    func memoryWatchAfterEvent(_ event: LifecycleEvent) {
        switch event {
        case .footprint, .memorySample: break
        default:
            memoryWatch.lastEvent = clock.elapsed()
            memoryWatch.trimmed = false
        }
        guard memoryWatch.quiet, memoryWatch.poller != nil, !deviceIsQuiet else { return }
        memoryWatch.quiet = false
        schedulePoll(after: .zero)
    }

    /// Measures the device's memory, passes the sample to the core when it would change the
    /// level or memory is critical, and says how long to wait before the next measurement;
    /// nil once the daemon has stopped.
    func measureDevice(quiet: Bool) -> DeviceMeasurement? {
        guard !isStopped else { return nil }
        memoryWatch.quiet = quiet
        let schedule = memoryWatch.schedule
        guard let device = memory.deviceMemory() else {
            return DeviceMeasurement(
                wait: schedule.ceiling, device: nil, level: lifecycle.memoryLevel, passedOn: false,
                busy: eventQueue.isHandling || eventQueue.queued > 0)
        }
        if memoryWatch.armedFor?.total != device.total || memoryWatch.armedFor?.settings != policy.memory {
            memoryWatch.armedFor = (device.total, policy.memory)
            armUsageThresholds()
        }
        let time = now()
        memoryWatch.schedule.record(available: device.available, at: time)
        let current = lifecycle.memoryLevel
        let next = lifecycle.memoryLevel(afterSampleOf: device.available, total: device.total)
        // While an event is queued or handled (a kill waits for its group to empty), the core
        // is about to measure again itself; a sample taken now could be stale by then.
        let busy = eventQueue.isHandling || eventQueue.queued > 0
        // Still critical: worth passing on only while someone may be killed (otherwise the
        // core would journal that nobody may be, at every measurement).
        let killsAgain =
            next == .critical && current == .critical
            && VictimRanking.victim(among: lifecycle.killCandidates(), killForeground: policy.memory.killForeground)
                != nil
        let passedOn = !busy && (next != current || killsAgain)
        if passedOn {
            if next == .critical { submitFootprints() }
            submit(.memorySample(available: device.available, total: device.total))
        }
        let wait = memoryWatch.schedule.interval(
            available: device.available, total: device.total, level: busy ? current : next,
            settings: policy.memory, killing: busy && current == .critical, quiet: quiet, at: time)
        return DeviceMeasurement(
            wait: wait, device: device, level: busy ? current : next, passedOn: passedOn, busy: busy)
    }

    /// Queues every running app's footprint that changed, so that the killer ranks on fresh
    /// figures (suspended apps are otherwise measured on every 30th sweep only).
    func submitFootprints() {
        let lifecycle = lifecycle
        let measured = memory.footprints { lifecycle.state(of: $0).map { $0 != .notRunning } == true }
        let time = now()
        for (name, bytes) in measured.sorted(by: { $0.key < $1.key })
        where lifecycle.snapshot(of: name, at: time)?.footprint != bytes {
            submit(.footprint(app: name, bytes: bytes))
        }
    }

    /// Arms v1 usage thresholds at the policy's marks (device limit − each boundary), and arms
    /// them again when the limit or the policy's thresholds change.
    private func armUsageThresholds() {
        guard let device = memory.deviceUsageGroup() else {
            if let armed = memoryWatch.thresholds {
                armed.monitor.stop()
                memoryWatch.thresholds = nil
            }
            return
        }
        let marks = lifecycle.memoryBoundaries(total: device.limit).map { UInt64(device.limit - $0) }
        if let armed = memoryWatch.thresholds, armed.group == device.group, armed.marks == marks { return }
        if memoryWatch.refusedMarks == marks { return }
        memoryWatch.thresholds?.monitor.stop()
        memoryWatch.thresholds = nil
        guard !marks.isEmpty else { return }
        let monitor: PressureMonitor
        do {
            monitor = try PressureMonitor.start(marks.map { .usageThreshold(group: device.group, bytes: $0) })
        } catch {
            memoryWatch.refusedMarks = marks
            logger.info("Memory usage thresholds not armed on \(device.group): \(error)")
            return
        }
        memoryWatch.refusedMarks = []
        memoryWatch.thresholds = (monitor, device.group, marks)
        logger.debug(
            "Memory usage thresholds armed.", metadata: ["group": "\(device.group)", "bytes": "\(marks)"])
        loops.append(
            Task { [weak self] in
                for await _ in monitor {
                    await self?.measureNow()
                }
            })
    }

    /// The kernel signalled (a usage threshold crossed, a PSI trigger fired): measure now, and
    /// poll from there. Nothing where the memory watch does not run.
    func measureNow() {
        guard memory.measuresDeviceBetweenSweeps, memoryWatch.poller != nil,
            let measurement = measureDevice(quiet: deviceIsQuiet)
        else { return }
        schedulePoll(after: untilSweep(measurement.wait))
    }
}
