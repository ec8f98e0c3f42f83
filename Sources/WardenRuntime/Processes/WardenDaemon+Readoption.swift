import FoundationEssentials
import Logging
import WardenAPI
import WardenCgroup
import WardenCore

/// Picking up the apps a previous daemon left running, from its checkpoint.
extension WardenDaemon {
    /// Starts the daemon's work: re-adopts what a previous daemon left running, journals and logs
    /// the start, arms the memory watch, plans the first fetch wakes (intervals count from the
    /// start, as in the simulator) and hands the core the ends of apps that stopped meanwhile.
    func boot() async {
        let gone = await readopt()
        let adopted = processes.table.running.keys.sorted()
        let stale = workers.pressureEndpoints.removeStale()
        if !stale.isEmpty {
            logger.info(
                "Removed the memory-pressure sockets left for apps not running: \(stale.joined(separator: ", ")).")
        }
        record(app: JournalEntry.systemApp, .system(.daemonStarted(version: WardenVersion.current, readopted: adopted)))
        recordPolicyInForce()
        DaemonLifeLog(logger: logger, options: options).started(
            policy: policy, driver: driver, adopted: adopted, lifecycle: lifecycle, running: processes.table.running)
        startMemoryWatch()
        await measure()
        journal.beginEvent()
        var followUps: [LifecycleEvent] = []
        await execute(lifecycle.start(at: clock.now()), followUps: &followUps)
        journal.flush(logger: logger)
        for event in gone + followUps { _ = await process(event) }
        rearmAlarm()
    }

    /// Continues from the last checkpoint: apps whose groups still hold processes are adopted
    /// with their state and deadlines (a suspended app stays frozen); apps whose processes are
    /// gone are reported as exited; processes left in groups of apps the model does not run are
    /// killed, so nothing runs twice or unsupervised. Every armed deadline continues from its
    /// absolute time; one that fell due while no daemon ran fires at once. Returns the ends of
    /// the apps found gone, for the core.
    private func readopt() async -> [LifecycleEvent] {
        var gone: [LifecycleEvent] = []
        let saved: (json: String, wallTimeMillis: Int64)?
        do {
            saved = try parts.journal.checkpoint()
        } catch {
            logger.error("Could not read the checkpoint; starting afresh: \(error)")
            saved = nil
        }
        var registered: [String] = []
        if let saved {
            do {
                let checkpoint = try JSONDecoder().decode(WardenCheckpoint.self, from: Data(saved.json.utf8))
                // Deadlines continue by the boot clock: the wall clock may have been set since.
                let then =
                    clock.now()
                    - parts.clock.timeSince(savedWallMillis: saved.wallTimeMillis, savedBoot: checkpoint.bootTime)
                lifecycle = Lifecycle(
                    policy: policy, checkpoint: checkpoint.lifecycle, at: then, tokenSource: parts.tokenSource)
                if let tokens = checkpoint.deviceTokens {
                    lifecycle.restoreDeviceTokens(tokens)
                }
                for kill in checkpoint.recentKills ?? [] { history.remember(kill) }
                registered = checkpoint.running.map(\.app)
                gone = await adopt(checkpoint.running)
            } catch {
                // The next save replaces the row: keep what could not be read (a newer format,
                // say) beside the journal, so that nothing is lost.
                let kept = options.stateDirectory + "/checkpoint-unread-\(saved.wallTimeMillis).json"
                if FileManager.default.createFile(atPath: kept, contents: Data(saved.json.utf8)) {
                    logger.error(
                        "Could not read the checkpoint; starting afresh, and keeping it in \"\(kept)\": \(error)")
                } else {
                    logger.error("Could not read the checkpoint, nor keep it in \"\(kept)\"; starting afresh: \(error)")
                }
            }
        }
        await processes.killStrays(declared: policy.apps.map(\.name), registered: registered)
        for (timer, deadline) in lifecycle.armedTimers() {
            timers.arm(timer, deadline: deadline)
        }
        return gone
    }

    /// Adopts the running apps of the model (`AppProcesses.adopt`), each app's memory-pressure
    /// socket made again (its processes hold its path). Returns the ends of the apps whose
    /// processes are gone.
    private func adopt(_ registry: [RunningAppRecord]) async -> [LifecycleEvent] {
        var gone: [LifecycleEvent] = []
        for (app, launch, state) in lifecycle.runningLaunches() {
            let entry = registry.first { $0.app == app }
            guard await processes.adopt(app, launch: launch, suspended: state == .suspended, saved: entry) else {
                logger.info("App \"\(app)\" ended while appwarden was not running.")
                gone.append(.processExited(app: app, launch: launch, end: .exited(code: 0)))
                continue
            }
            _ = workers.pressureEndpoints.open(app: app, user: policy.app(named: app)?.user, logger: logger)
        }
        return gone
    }
}
