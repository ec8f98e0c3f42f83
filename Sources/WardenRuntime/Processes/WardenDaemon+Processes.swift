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
        let end = processes.classify(exit.termination, app: exit.app)
        if processes.table.running[exit.app]?.pid == exit.pid {
            metrics.processEnded(app: exit.app, at: clock.now())
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
}
