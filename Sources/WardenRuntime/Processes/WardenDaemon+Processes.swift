import Logging
import WardenAPI
import WardenCgroup
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the launcher reports: a launched process that began to run, a watched process that ended.
extension WardenDaemon {
    func processReport(_ report: ProcessReport) async {
        guard phase.isRunning else { return }
        switch report {
        case .started(let start):
            guard processes.table.running[start.app]?.launch == start.launch,
                processes.table.running[start.app]?.pid == start.pid
            else { return }
            _ = await process(.launched(app: start.app, launch: start.launch))
        case .ended(let exit):
            await processEnded(exit)
        }
    }

    /// A process ended: classified (exited, crashed, or killed by the kernel's OOM killer, read
    /// from its group before the group is released), its group released, and its end handed to
    /// the core.
    func processEnded(_ exit: ProcessExit) async {
        let end = classify(exit.termination, app: exit.app)
        if processes.table.running[exit.app]?.pid == exit.pid {
            metrics.processEnded(app: exit.app, at: now())
            processes.table.running[exit.app] = nil
            workers.pressureEndpoints.close(app: exit.app)
            await processes.releaseGroup(exit.app)
        }
        logger.info(
            "Process \(exit.pid) of app \"\(exit.app)\" ended: \(exit.termination?.description ?? "status unknown").")
        if exit.termination == nil {
            record(app: exit.app, .decision("Process \(exit.pid) ended; exit status unknown (re-adopted process)."))
        }
        _ = await process(.processExited(app: exit.app, launch: exit.launch, end: end))
    }

    /// Exit 0 or a signal appwarden sent → exited; SIGKILL that the app's group counted as an OOM
    /// kill → the kernel's OOM kill (at the group's own limit or not); a non-zero status or
    /// another signal → crashed.
    func classify(_ termination: SpawnedProcess.Termination?, app: String) -> ProcessEnd {
        switch termination {
        case nil: return oomKill(of: app).map(ProcessEnd.oomKilled) ?? .exited(code: 0)
        case .exited(0): return .exited(code: 0)
        case .exited(let status): return .crashed(description: "exited with status \(status)")
        case .signaled(let signal):
            if processes.table.signalsSent[app]?.contains(signal) == true { return .exited(code: 128 + signal) }
            if signal == SIGKILL, let kill = oomKill(of: app) {
                logger.notice("App \"\(app)\": \(kill.sentence)")
                return .oomKilled(kill)
            }
            return .crashed(description: "ended by signal \(signal)")
        }
    }
}

extension WardenDaemon {
    /// Makes `app`'s memory-pressure socket for a launch, owned by the app's user; returns its
    /// path for `MEMORY_PRESSURE_WATCH`, or nil when it could not be made (said in the log; the
    /// app then runs without one).
    func openPressureEndpoint(_ app: String, user: String?) -> String? {
        let owner = user.flatMap { SpawnRequest.User.policy($0).ids }
        do {
            return try workers.pressureEndpoints.open(app: app, owner: owner)
        } catch {
            logger.warning("App \"\(app)\" gets no memory-pressure socket (MEMORY_PRESSURE_WATCH): \(error).")
            return nil
        }
    }
}
