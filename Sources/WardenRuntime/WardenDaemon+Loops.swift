import Foundation
import Logging
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
        let exits = watcher.exits
        loops.append(
            Task { [weak self] in
                for await exit in exits {
                    await self?.processEnded(exit)
                }
            })
        let interval = options.sampleInterval
        let clock = clock
        loops.append(
            Task { [weak self] in
                var next = clock.elapsed() + interval
                while !Task.isCancelled {
                    try? await clock.sleep(untilElapsed: next)
                    guard !Task.isCancelled, let self else { return }
                    await self.sampleMemory()
                    next = max(next + interval, clock.elapsed())
                }
            })
        startPressureMonitor()
        startRetention()
    }

    /// A watched process ended: classified as exited or crashed and queued for the core.
    func processEnded(_ exit: ProcessWatcher.Exit) async {
        let end = classify(exit.termination, app: exit.app)
        if running[exit.app]?.pid == exit.pid {
            running[exit.app] = nil
            await releaseGroup(exit.app)
        }
        logger.info(
            "Process \(exit.pid) of app \"\(exit.app)\" ended: \(exit.termination?.description ?? "status unknown").")
        if exit.termination == nil {
            record(
                app: exit.app, kind: "decision", name: "decision",
                properties: [
                    "text": "Process \(exit.pid) ended; exit status unknown (re-adopted process)."
                ])
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
            if signalsSent[app]?.contains(signal) == true { return .exited(code: 128 + signal) }
            return .crashed(description: "ended by signal \(signal)")
        }
    }

    /// One sweep: every running app's footprint, then the host's available memory.
    func sampleMemory() async {
        guard !isStopped else { return }
        sweeps &+= 1
        if sweeps % 2 == 0 {
            await reconcileFreezer()
        }
        // A frozen app cannot grow: suspended apps are measured on every tenth sweep only,
        // which keeps an idle device with many suspended apps cheap.
        let everyone = sweeps % 10 == 0
        let sampled = sampler.sampleStatistics { name in
            guard let state = self.lifecycle.state(of: name), state != .notRunning else { return false }
            return everyone || state != .suspended
        }
        for (name, statistics) in sampled {
            let bytes = Int64(clamping: statistics.footprint)
            // An unchanged footprint changes nothing in the core.
            guard lifecycle.snapshot(of: name, at: now())?.footprint != bytes else { continue }
            submit(.footprint(app: name, bytes: bytes))
        }
        if let memory = deviceMemory() {
            submit(.memorySample(available: memory.available, total: memory.total))
        }
    }

    /// After a kill for memory: the group is empty (the driver waited), so measure again and
    /// take a new sample, which kills the next victim while memory stays critical.
    func remeasure() {
        for (name, statistics) in sampler.sampleStatistics()
        where lifecycle.state(of: name).map({ $0 != .notRunning }) == true {
            followUps.append(.footprint(app: name, bytes: Int64(clamping: statistics.footprint)))
        }
        if let memory = deviceMemory() {
            followUps.append(.memorySample(available: memory.available, total: memory.total))
        }
    }

    /// Finds groups frozen or thawed behind appwarden's back (a suspended app that runs, or a
    /// running app that is frozen) and tells the core, which freezes or thaws them again.
    /// Not in a dry run, where suspended apps are never frozen.
    func reconcileFreezer() async {
        guard let driver, !options.dryRun else { return }
        for (app, group) in groups {
            guard !isHandling, let state = lifecycle.state(of: app), state != .notRunning,
                let frozen = try? await driver.isFrozen(group)
            else { continue }
            // Checked again after the await: an event may have been handled meanwhile.
            guard !isHandling, lifecycle.state(of: app) == state, frozen != (state == .suspended) else { continue }
            logger.warning("App \"\(app)\" was found \(frozen ? "frozen" : "thawed") while \(state.rawValue).")
            submit(.observedFrozen(app: app, frozen: frozen))
        }
    }

    /// The memory the apps share: when appwarden's root group has a memory limit below the
    /// host's memory (a device modelled by a parent group), the limit and what is left under it;
    /// otherwise the host's `MemAvailable` and `MemTotal`.
    func deviceMemory() -> (available: Int64, total: Int64)? {
        let host = try? HostMemory.read()
        let hostTotal = host.map { Int64(clamping: $0.total) } ?? Int64.max
        if let driver {
            let probe = driver.group(named: "probe")
            var files: [(limit: String, usage: String)] = []
            if let memory = probe.memoryPath.map(Self.parent) {
                files.append((memory + "/memory.limit_in_bytes", memory + "/memory.usage_in_bytes"))
            }
            if layout?.memorySource == .unified, let unified = probe.unifiedPath.map(Self.parent) {
                files.append((unified + "/memory.max", unified + "/memory.current"))
            }
            for (limitFile, usageFile) in files {
                guard let limit = Self.readNumber(limitFile), limit > 0, limit < hostTotal,
                    let usage = Self.readNumber(usageFile)
                else { continue }
                return (max(0, limit - usage), limit)
            }
        }
        return host.map { (Int64(clamping: $0.available), Int64(clamping: $0.total)) }
    }

    /// The number a cgroup file holds; nil when it is missing or says "max".
    static func readNumber(_ path: String) -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Watches PSI of appwarden's root group (and v1 pressure levels where the host has them);
    /// a source that cannot be armed is logged and the memory samples carry on alone.
    func startPressureMonitor() {
        guard let driver else { return }
        let probe = driver.group(named: "probe")
        var sources: [PressureMonitor.Source] = []
        if let unified = probe.unifiedPath.map(Self.parent) {
            sources.append(
                .psi(path: unified + "/memory.pressure", kind: .some, stall: .milliseconds(150), level: .medium))
            sources.append(
                .psi(path: unified + "/memory.pressure", kind: .full, stall: .milliseconds(150), level: .critical))
        }
        if let memory = probe.memoryPath.map(Self.parent) {
            sources.append(.pressureLevel(group: memory, level: .critical))
        }
        var armed: [PressureMonitor] = []
        for source in sources {
            do {
                armed.append(try PressureMonitor.start([source]))
            } catch {
                logger.info("Memory pressure source not armed (\(source)): \(error)")
            }
        }
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
                        if let level { await self?.submit(.pressure(level)) }
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
