import Foundation
import Logging
import WardenAPI
import WardenCgroup
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The loops that turn the outside world into events: process exits, memory samples and
/// pressure notifications.
extension WardenDaemon {
    func startLoops() {
        let exits = launcher.exits
        loops.append(
            Task { [weak self] in
                for await exit in exits {
                    await self?.watchedProcessEnded(exit)
                }
            })
        let starts = launcher.starts
        loops.append(
            Task { [weak self] in
                for await start in starts {
                    await self?.processStarted(start)
                }
            })
        startPressureMonitor()
        if memory.measuresDeviceBetweenSweeps {
            // The memory watch's wakes carry the sweeps: one timer, not two.
            startMemoryWatch()
        } else {
            startSweeps()
        }
        startRetention()
    }

    /// Sweeps on a timer of their own, where the memory source cannot measure the device
    /// between sweeps (there is no memory watch to carry them).
    private func startSweeps() {
        let interval = options.sampleInterval
        let clock = clock
        let first = clock.elapsed() + interval
        wakes["sweep"] = first
        loops.append(
            Task { [weak self] in
                var next = first
                while !Task.isCancelled {
                    try? await clock.sleep(untilElapsed: next)
                    guard !Task.isCancelled, let self else { return }
                    next = await self.sweep(after: next)
                }
            })
    }

    /// Runs a memory sweep that was due at `due`; returns when the next one is due.
    private func sweep(after due: Duration) async -> Duration {
        await sampleMemory()
        let next = max(due + options.sampleInterval, clock.elapsed())
        wakes["sweep"] = next
        return next
    }

    /// What the daemon has left to do: events queued, process ends and starts taken from the
    /// launcher, and when each loop sleeping on the clock wakes next (time since the origin).
    ///
    /// A test on a manual clock waits until no event is queued, every end and start the launcher
    /// reported was taken, and every wake lies ahead with its sleeper registered on the clock.
    public struct Activity: Sendable, Equatable {
        public var queuedEvents: Int
        public var exitsHandled: Int
        public var startsHandled: Int
        public var wakes: [Duration]
        /// Reads (status, explain) waiting for the event being carried out.
        public var waitingReads: Int
    }

    /// What the daemon has left to do now.
    public func activity() -> Activity {
        Activity(
            queuedEvents: eventQueue.queued, exitsHandled: exitsHandled, startsHandled: startsHandled,
            wakes: wakes.values.sorted(), waitingReads: eventQueue.waitingReads.count)
    }

    /// A launched process began to run: the core decides whether the app is ready.
    private func processStarted(_ start: ProcessStart) {
        startsHandled += 1
        guard processes.running[start.app]?.launch == start.launch, processes.running[start.app]?.pid == start.pid
        else { return }
        submit(.launched(app: start.app, launch: start.launch))
    }

    /// A process the launcher watched ended. Counted once its end is queued for the core (the
    /// release of its group may wait), so that a test that sees every end taken sees its event.
    private func watchedProcessEnded(_ exit: ProcessExit) async {
        await processEnded(exit)
        exitsHandled += 1
    }

    /// A process ended: classified as exited or crashed and queued for the core.
    func processEnded(_ exit: ProcessExit) async {
        let end = classify(exit.termination, app: exit.app)
        if processes.running[exit.app]?.pid == exit.pid {
            metrics.processEnded(app: exit.app, at: now())
            processes.running[exit.app] = nil
            await releaseGroup(exit.app)
        }
        logger.info(
            "Process \(exit.pid) of app \"\(exit.app)\" ended: \(exit.termination?.description ?? "status unknown").")
        if exit.termination == nil {
            record(app: exit.app, .decision("Process \(exit.pid) ended; exit status unknown (re-adopted process)."))
        }
        submit(.processExited(app: exit.app, launch: exit.launch, end: end))
    }

    /// Exit 0 or a signal appwarden sent → exited; a non-zero status or another signal → crashed.
    func classify(_ termination: SpawnedProcess.Termination?, app: String) -> ProcessEnd {
        switch termination {
        case nil: return .exited(code: 0)
        case .exited(0): return .exited(code: 0)
        case .exited(let status): return .crashed(description: "exited with status \(status)")
        case .signaled(let signal):
            if processes.signalsSent[app]?.contains(signal) == true { return .exited(code: 128 + signal) }
            return .crashed(description: "ended by signal \(signal)")
        }
    }

    /// One sweep: every running app's footprint, then the host's available memory; re-adopted
    /// apps the launcher could not watch are also checked for having ended.
    func sampleMemory() async {
        guard !isStopped else { return }
        await sweepApps()
        if let device = memory.deviceMemory() {
            submit(.memorySample(available: device.available, total: device.total))
        }
    }

    /// The apps' part of a sweep: re-adopted processes the launcher could not watch checked for
    /// having ended, groups frozen or thawed behind appwarden's back, and the footprints of
    /// running apps (of suspended ones on every `suspendedSampleSweeps`th sweep).
    func sweepApps(includingSuspended: Bool? = nil) async {
        guard !isStopped else { return }
        await checkAdoptedProcesses()
        sweeps &+= 1
        // A frozen app cannot grow nor thaw itself: suspended apps are measured and their
        // freezer checked on every nth sweep only, which keeps an idle device with many
        // suspended apps cheap.
        let everyone = includingSuspended ?? (sweeps % options.suspendedSampleSweeps == 0)
        if everyone || sweeps % options.freezerCheckSweeps == 0 {
            await reconcileFreezer(includingSuspended: everyone)
        }
        let lifecycle = lifecycle
        let sampled = memory.footprints { name in
            guard let state = lifecycle.state(of: name), state != .notRunning else { return false }
            return everyone || state != .suspended
        }
        for (name, bytes) in sampled.sorted(by: { $0.key < $1.key }) {
            // An unchanged footprint changes nothing in the core.
            guard lifecycle.snapshot(of: name, at: now())?.footprint != bytes else { continue }
            submit(.footprint(app: name, bytes: bytes))
        }
    }

    /// After a kill for memory: the group is empty (the driver waited), so measure again and
    /// take a new sample, which kills the next victim while memory stays critical.
    func remeasure() {
        for (name, bytes) in memory.footprints(where: { _ in true }).sorted(by: { $0.key < $1.key })
        where lifecycle.state(of: name).map({ $0 != .notRunning }) == true {
            eventQueue.followUps.append(.footprint(app: name, bytes: bytes))
        }
        if let device = memory.deviceMemory() {
            eventQueue.followUps.append(.memorySample(available: device.available, total: device.total))
        }
    }

    /// Finds groups frozen or thawed behind appwarden's back (a suspended app that runs, or a
    /// running app that is frozen) and tells the core, which freezes or thaws them again.
    /// Suspended apps are looked at only if `includingSuspended`. Not in a dry run, where
    /// suspended apps are never frozen.
    func reconcileFreezer(includingSuspended: Bool = true) async {
        guard let driver, !options.dryRun else { return }
        for (app, group) in processes.groups {
            guard !eventQueue.isHandling, let state = lifecycle.state(of: app), state != .notRunning,
                includingSuspended || state != .suspended,
                let frozen = try? await driver.isFrozen(group)
            else { continue }
            // Checked again after the await: an event may have been handled meanwhile.
            guard !eventQueue.isHandling, lifecycle.state(of: app) == state, frozen != (state == .suspended) else {
                continue
            }
            logger.warning("App \"\(app)\" was found \(frozen ? "frozen" : "thawed") while \(state.rawValue).")
            submit(.observedFrozen(app: app, frozen: frozen))
        }
    }

    /// Re-adopted processes the launcher could not watch (no pidfd): their end is found here,
    /// by reaping them if they are children or by finding their group empty.
    func checkAdoptedProcesses() async {
        for (app, entry) in processes.running where !entry.isWatched {
            var status: Int32 = 0
            let reaped = waitpid(entry.pid, &status, WNOHANG)
            var termination: SpawnedProcess.Termination?
            var ended = false
            if reaped == entry.pid {
                ended = true
                termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
            } else if let driver, let group = processes.groups[app] {
                ended = ((try? await driver.processes(in: group)) ?? [entry.pid]).isEmpty
            } else {
                ended = !launcher.exists(entry.pid)
            }
            if ended {
                await processEnded(
                    ProcessExit(app: app, launch: entry.launch, pid: entry.pid, termination: termination))
            }
        }
    }

    /// Watches PSI of appwarden's root group (and v1 pressure levels where the host has them);
    /// each event also makes the memory watch measure at once. A source that cannot be armed
    /// is logged and the memory samples carry on alone.
    func startPressureMonitor() {
        guard let driver else { return }
        let probe = driver.group(named: "probe")
        var sources: [PressureMonitor.Source] = []
        if let unified = probe.unifiedPath.map(Self.parent) {
            sources.append(
                .psi(path: unified + "/memory.pressure", kind: .some, stall: options.pressureStall, level: .medium))
            sources.append(
                .psi(path: unified + "/memory.pressure", kind: .full, stall: options.pressureStall, level: .critical))
        }
        if let memory = probe.memoryPath.map(Self.parent) {
            sources.append(.pressureLevel(group: memory, level: .critical))
        }
        var armed: [PressureMonitor] = []
        var armedSources: [String] = []
        for source in sources {
            do {
                armed.append(try PressureMonitor.start([source]))
                armedSources.append(Self.describe(source))
            } catch {
                logger.info("Memory pressure source not armed (\(source)): \(error)")
            }
        }
        let armedList =
            armedSources.isEmpty
            ? "none; the memory samples alone detect pressure."
            : "\(armedSources.joined(separator: "; ")); memory samples as well."
        logger.info("Memory pressure sources armed: \(armedList)")
        for monitor in armed {
            loops.append(
                Task { [weak self] in
                    for await event in monitor {
                        let level: PressureLevel? =
                            switch event.level {
                            case .critical: .critical
                            case .medium: .warning
                            case .low, .normal: nil
                            }
                        if let level {
                            // The killer ranks on fresh figures, suspended apps' included.
                            if level == .critical { await self?.submitFootprints() }
                            await self?.submit(.pressure(level))
                            await self?.measureNow()
                        }
                    }
                })
        }
        monitors = armed
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
