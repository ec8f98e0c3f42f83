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
        logStartup(adopted: adopted)
        startMemoryWatch()
        await measure()
        journal.beginEvent()
        var followUps: [LifecycleEvent] = []
        await execute(lifecycle.start(at: now()), followUps: &followUps)
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
                    now() - parts.clock.timeSince(savedWallMillis: saved.wallTimeMillis, savedBoot: checkpoint.bootTime)
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
        await killStrays(registered: registered)
        for (timer, deadline) in lifecycle.armedTimers() {
            timers.arm(timer, deadline: deadline)
        }
        return gone
    }

    /// Adopts the running apps of the model: each one's main process is watched through a pidfd
    /// (`ProcessWatcher.watch(pid:app:launch:)`), so its end is noticed at once. Returns the
    /// ends of the apps whose processes are gone.
    private func adopt(_ registry: [RunningAppRecord]) async -> [LifecycleEvent] {
        var gone: [LifecycleEvent] = []
        for (app, launch, state) in lifecycle.runningLaunches() {
            let entry = registry.first { $0.app == app }
            let group = entry?.group ?? driver?.group(named: app)
            var pids: [Int32] = []
            if let driver, let group {
                pids = (try? await driver.processes(in: group)) ?? []
            }
            guard !pids.isEmpty else {
                logger.info("App \"\(app)\" ended while appwarden was not running.")
                gone.append(.processExited(app: app, launch: launch, end: .exited(code: 0)))
                continue
            }
            processes.table.groups[app] = group
            let mainPID = entry.flatMap { pids.contains($0.pid) ? $0.pid : nil } ?? pids[0]
            processes.table.running[app] = RunningProcess(
                record: RunningAppRecord(
                    app: app, launch: launch, pid: mainPID, group: group,
                    startedWallMillis: entry?.startedWallMillis ?? parts.clock.wallMillis()),
                isWatched: parts.launcher.watch(pid: mainPID, app: app, launch: launch))
            if let group { processes.watchMemory(of: app, group: group) }
            // The app's processes hold the path of its memory-pressure socket: it is made again.
            _ = workers.pressureEndpoints.open(app: app, user: policy.app(named: app)?.user, logger: logger)
            if let driver, let group, !options.dryRun {
                let frozen = (try? await driver.isFrozen(group)) ?? false
                if state == .suspended && !frozen {
                    try? await driver.freeze(group)
                } else if state != .suspended && frozen {
                    try? await driver.thaw(group)
                }
            }
        }
        return gone
    }

    /// Kills processes found in the groups of apps that the model does not run: apps of the
    /// policy, and apps of the last checkpoint that the policy no longer declares (which the
    /// previous daemon ran, suspended ones included), each with a log line that says which.
    private func killStrays(registered: [String]) async {
        guard let driver else { return }
        let declared = policy.apps.map(\.name)
        let undeclared = registered.filter { !declared.contains($0) }
        for app in declared + undeclared where processes.table.groups[app] == nil {
            let group = driver.group(named: app)
            guard let pids = try? await driver.processes(in: group), !pids.isEmpty else { continue }
            if declared.contains(app) {
                logger.warning("Killing processes \(pids) left in the group of app \"\(app)\", which is not running.")
            } else {
                logger.warning(
                    "Killing processes \(pids) of app \"\(app)\", which was running under the previous policy: the policy no longer declares it."
                )
            }
            if !options.dryRun {
                try? await driver.kill(group)
                try? await driver.remove(group)
            }
        }
    }
}
