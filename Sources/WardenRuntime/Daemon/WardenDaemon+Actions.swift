import FoundationEssentials
import Logging
import WardenAPI
import WardenCgroup
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Carrying out the core's actions.
extension WardenDaemon {
    /// Carries out `actions` in order, a kill for memory first (`inCarryingOutOrder`); returns
    /// the reply among them, if any. Events the actions lead to (a spawn's readiness, a hold found
    /// at suspension, a scan's result, a measurement after a kill) go to `followUps`, for the core
    /// right after.
    @discardableResult
    func execute(_ actions: [LifecycleAction], followUps: inout [LifecycleEvent]) async -> Reply? {
        var reply: Reply?
        // The major page faults each kill for memory cost the daemon, for the kill's log line.
        var faultsByVictim: [String: Int] = [:]
        metrics.count(actions, at: now())
        for action in Self.inCarryingOutOrder(actions) {
            switch action {
            case .spawn(let app, let launch, let reason, let restore):
                await spawn(app, launch: launch, reason: reason, restore: restore, followUps: &followUps)
            case .freeze(let app, let guardPaths):
                await freeze(app, guardPaths: guardPaths, followUps: &followUps)
            case .compress(let app, let launch):
                compress(app, launch: launch)
            case .measureStall(let app, let launch):
                followUps.append(.stallMeasured(app: app, launch: launch, total: await stall(of: app)))
            case .thaw(let app):
                await thaw(app)
            case .terminate(let app, let reason):
                await terminate(app, reason: reason)
            case .kill(let app, let reason):
                rememberKill(app, reason: reason)
                faultsByVictim[app] = await kill(app, reason: reason)
            case .setOOMScore(let app, _, let score):
                await setOOMScore(app, score: score)
            case .setMemoryLimits(let app, let limits):
                await setMemoryLimits(app, limits)
            case .setCPU(let app, _, let control):
                await setCPU(app, control)
            case .measureCPU(let app, let launch):
                followUps.append(.cpuMeasured(app: app, launch: launch, usage: await cpuUsage(of: app)))
            case .deliver(let app, let message):
                record(app: app, .message(message))
                sendMappedSignal(app, for: message)
                if case .memoryWarning = message { workers.pressureEndpoints.warn(app: app) }
            case .armTimer(let timer, let deadline):
                arm(timer, deadline: deadline)
            case .cancelTimer(let timer):
                cancel(timer)
            case .publishStatus(let app, let status):
                record(app: app, .status(status))
            case .scan(let app):
                followUps.append(.scanResult(app: app, outcome: await scan(app)))
            case .journal(let journalRecord):
                logMemoryDecision(journalRecord, faults: faultsByVictim[journalRecord.app])
                journal.append(
                    NewJournalEntry(
                        app: journalRecord.app, event: AppEvent(journalRecord.kind),
                        wallTimeMillis: wallMillis(journalRecord.time)), logger: logger)
            case .deleteRestorationState(let app):
                deleteRestorationState(app)
            case .reply(let answer):
                reply = answer
            case .runHook(let hook):
                hooks.start(hook)
            }
        }
        if MemoryWatchPlan.measuresAgain(after: actions) {
            followUps += memoryWatch.measureAgain(memory: parts.memory, lifecycle: lifecycle)
        }
        return reply
    }

    /// `actions` in the order they are carried out: the core's order, except that a kill for
    /// memory comes first. The device waits for what the victim frees; the records, status
    /// changes, warnings and log lines that come with the kill (a log line is a write to the
    /// journal's socket, which a device short of memory may be slow to read) follow it. The
    /// journal's entries keep the core's order: they are written together once the job is done,
    /// and a kill writes none.
    static func inCarryingOutOrder(_ actions: [LifecycleAction]) -> [LifecycleAction] {
        func killsForMemory(_ action: LifecycleAction) -> Bool {
            if case .kill(_, .memoryPressure) = action { true } else { false }
        }
        guard actions.dropFirst().contains(where: killsForMemory) else { return actions }
        return actions.filter(killsForMemory) + actions.filter { !killsForMemory($0) }
    }

    /// Logs a change of the pressure level and a kill for memory with the figures that decided
    /// them: what was available, the thresholds, what the victim gives back. A kill is carried
    /// out before its records (`inCarryingOutOrder`) but logged here, in the core's order: after
    /// the change of level that led to it, in one line with the major page `faults` it cost.
    func logMemoryDecision(_ record: JournalRecord, faults: Int? = nil) {
        if let line = memoryDecisionLine(record, faults: faults) { logger.notice("\(line)") }
    }

    /// The log line of a change of the pressure level or a kill for memory; nil for other records.
    /// A kill's line ends with the major page `faults` the daemon took from the measurement that
    /// chose the victim to its kill, where counted.
    func memoryDecisionLine(_ record: JournalRecord, faults: Int? = nil) -> String? {
        let size = DurationFormat.sizeString
        switch record.kind {
        case .system(.pressureChanged(let from, let to, let figures)):
            let measured =
                figures.map {
                    ": \(size($0.availableBytes)) available of \(size($0.totalBytes))\(Explanation.swapClause($0)); \(Explanation.thresholdsClause($0))"
                } ?? ""
            return "Memory pressure \(from.rawValue) → \(to.rawValue)\(measured)."
        case .memoryKill(let report):
            let measured =
                report.figures.map {
                    "; \(size($0.availableBytes)) available of \(size($0.totalBytes))\(Explanation.swapClause($0)), \(Explanation.criticalClause($0))"
                } ?? ""
            let waited =
                faults.map {
                    "; the daemon took \($0) major page fault\($0 == 1 ? "" : "s") since the measurement that chose it"
                } ?? ""
            let chosen = report.tookRoom.map { "it \($0.clause)" } ?? "\(report.band) band"
            return
                "Killed app \"\(record.app)\" for memory pressure: \(chosen), gives back \(Explanation.givenBack(report))\(measured)\(waited)."
        default:
            return nil
        }
    }

    // MARK: Signals for messages

    /// Sends the app's main process the signal its policy maps `message`'s kind to, if any
    /// (`signals`), for apps that keep no connection to read their event stream.
    func sendMappedSignal(_ app: String, for message: AppMessage) {
        guard let kind = Self.signalKind(of: message), let signal = policy.app(named: app)?.signals[kind],
            let main = processes.running[app]
        else { return }
        processes.signalsSent[app, default: []].insert(signal)
        if !parts.launcher.send(signal, to: main.pid) {
            logger.error("Could not send signal \(signal) to app \"\(app)\" (process \(main.pid)) for \(kind).")
        }
    }

    /// The name a policy's `signals` table gives `message`'s kind; nil for kinds it cannot map.
    static func signalKind(of message: AppMessage) -> String? {
        switch message {
        case .stateChanged: nil
        case .expirationWarning: "expiration_warning"
        case .fetchStart: "fetch_start"
        case .pushPayload: "push_payload"
        case .accessoryEvent: "accessory_event"
        case .memoryWarning: "memory_warning"
        case .cpuWarning: "cpu_warning"
        case .activitiesEnded: "activities_ended"
        case .saveState: "save_state"
        }
    }

    // MARK: Spawning

    func spawn(
        _ app: String, launch: Int, reason: LaunchReason, restore: Bool, followUps: inout [LifecycleEvent]
    ) async {
        // What the launch holds the loop up for (its environment, the group, the limits, the spawn
        // up to `execve`), measured in real time whatever the daemon's clock, and logged with it.
        let started = ContinuousClock.now
        guard let appPolicy = policy.app(named: app) else {
            followUps.append(.spawnFailed(app: app, launch: launch, message: "The policy has no app \"\(app)\"."))
            return
        }
        guard let command = appPolicy.command else {
            followUps.append(
                .spawnFailed(
                    app: app, launch: launch, message: "App \"\(app)\" has no command in the policy to launch."))
            return
        }
        let user = appPolicy.user.map(SpawnRequest.User.policy)
        let folder = prepareFolder(of: app, user: user)
        let restoration = folder.restoration
        var environment: [String: String] = [:]
        let inherited = ProcessInfo.processInfo.environment
        for key in ["PATH", "HOME", "LANG", "TZ"] {
            if let value = inherited[key] { environment[key] = value }
        }
        // An app of another user has a home of its own, not the daemon's.
        if let uid = user?.ids?.uid, uid != geteuid() {
            environment["HOME"] = folder.path
        }
        environment.merge(appPolicy.env) { _, new in new }
        environment["APPWARDEN_SOCKET"] = options.socketPath
        environment["APPWARDEN_APP"] = app
        environment["APPWARDEN_LAUNCH_REASON"] = reason.rawValue
        environment["APPWARDEN_RESTORATION_DIR"] = restoration
        // The app's event stream starts here, so that what is delivered before the process
        // connects (the push or fetch that launched it) is not lost.
        environment["APPWARDEN_EVENTS_SINCE"] = String((try? parts.journal.lastEntryID()) ?? 0)
        if restore {
            environment["APPWARDEN_RESTORE"] = "1"
        }
        if let watch = openPressureEndpoint(app, user: appPolicy.user) {
            environment["MEMORY_PRESSURE_WATCH"] = watch
            environment["MEMORY_PRESSURE_WRITE"] = ""
        }
        processes.signalsSent[app] = []
        var group: AppGroup?
        do {
            if let driver {
                // The previous launch's end, if reported from now on, must not release the new group.
                if let previous = processes.running[app], previous.launch != launch {
                    processes.running[app] = nil
                }
                let created = try await driver.createGroup(named: app)
                group = created
                if let limits = processes.limits[app], !limits.isEmpty {
                    try await driver.setMemoryLimits(Self.kernelLimits(limits), of: created)
                }
                await applyCPU(app, to: created, with: driver)
                await boundTasks(app, to: appPolicy.tasksMax.count, of: created, with: driver)
                processes.groups[app] = created
            }
            let log = options.logPath(of: app)
            let launched = try parts.launcher.launch(
                SpawnRequest(
                    executable: command, arguments: appPolicy.args, environment: environment,
                    workingDirectory: appPolicy.workingDirectory, user: user,
                    standardOutputPath: log, standardErrorPath: log, group: group,
                    logRotation: LogRotation(maxSize: policy.logs.maxSize, keep: policy.logs.keep)),
                app: app, launch: launch)
            processes.running[app] = RunningProcess(
                record: RunningAppRecord(
                    app: app, launch: launch, pid: launched.pid, group: group,
                    startedWallMillis: parts.clock.wallMillis()),
                isWatched: true)
            if let group { watchMemory(of: app, group: group) }
            let took = (ContinuousClock.now - started).milliseconds
            logger.info(
                "Launched app \"\(app)\" (launch \(launch), \(reason.rawValue)) as process \(launched.pid) in \(took) ms."
            )
            // The core decides readiness once the process runs (at once, or when the launcher says so).
            if launched.isRunning {
                followUps.append(.launched(app: app, launch: launch))
            }
        } catch {
            logger.error("Could not launch app \"\(app)\": \(error)")
            // No process of the app will connect, nor end to remove its socket.
            workers.pressureEndpoints.close(app: app)
            // A launch that did not start leaves no group behind.
            if let driver, let group, await empty(group, of: app, with: driver) {
                processes.groups[app] = nil
            }
            followUps.append(.spawnFailed(app: app, launch: launch, message: "\(error)"))
        }
    }

    /// Measures the app's group from now on, watches it for OOM kills and notes its OOM counters,
    /// against which a kill is recognized.
    func watchMemory(of app: String, group: AppGroup) {
        parts.memory.track(group)
        parts.signals.watch(app: app, group: group)
        processes.oomBaselines[app] = parts.memory.oomState(of: app)
    }

    // MARK: Freezing

    func freeze(_ app: String, guardPaths: [ResourcePath], followUps: inout [LifecycleEvent]) async {
        processes.frozenProcessLists[app] = nil
        guard let driver, let group = processes.groups[app] else {
            logger.warning("Cannot freeze app \"\(app)\": it has no group.")
            return
        }
        if !guardPaths.isEmpty {
            do {
                let pids = try await driver.processes(in: group)
                for guarded in guardPaths {
                    if let hold = try parts.launcher.holds(of: guarded.path, among: pids).first {
                        logger.info("Not freezing app \"\(app)\": \(hold) (resource \"\(guarded.resource)\").")
                        followUps.append(.heldAtSuspension(app: app, resource: guarded.resource))
                        return
                    }
                }
            } catch {
                logger.warning("Could not check the resources of app \"\(app)\" before freezing: \(error)")
            }
        }
        if options.dryRun {
            logger.notice("Dry run: would freeze app \"\(app)\".")
            return
        }
        do {
            try await driver.freeze(group)
        } catch {
            logger.error("Could not freeze app \"\(app)\": \(error)")
            return
        }
        // Measured once frozen: suspended apps are otherwise measured only now and then, and
        // the killer ranks them by this figure.
        if let measurement = parts.memory.measurements(of: [app])[app],
            let event = MemoryWatch.footprintEvent(app, measurement, known: lifecycle.footprint(of: app))
        {
            followUps.append(event)
        }
    }

    /// Hands a frozen app to the compressor, beside the loop (never in a dry run).
    func compress(_ app: String, launch: Int) {
        guard let group = processes.groups[app], !options.dryRun else { return }
        workers.compressor.enqueue(SuspendedCompressor.Request(app: app, launch: launch, group: group), inbox: inbox)
    }

    /// How long the app's processes have waited on memory or for a CPU in total (`CgroupDriver.stall`);
    /// nil where the host does not count it per group or the group is gone.
    func stall(of app: String) async -> Duration? {
        guard let driver, let group = processes.groups[app] else { return nil }
        do {
            return try await driver.stall(of: group)
        } catch {
            logger.debug("Could not read the stall of app \"\(app)\": \(error)")
            return nil
        }
    }

    func thaw(_ app: String) async {
        processes.frozenProcessLists[app] = nil
        guard let driver, let group = processes.groups[app], !options.dryRun else { return }
        do {
            try await driver.thaw(group)
        } catch {
            logger.error("Could not thaw app \"\(app)\": \(error)")
        }
    }

    // MARK: Ending processes

    func terminate(_ app: String, reason: TerminationReason) async {
        processes.signalsSent[app, default: []].insert(SIGTERM)
        for pid in await pids(of: app) {
            parts.launcher.send(SIGTERM, to: pid)
        }
        logger.info("Asked app \"\(app)\" to stop (\(reason.rawValue)).")
    }

    /// How long a kill waits on the daemon's loop for the app's group to empty, as lmkd's
    /// `kill_timeout_ms`: past it the loop goes on and `KillFinisher` waits for the rest beside it,
    /// so that a victim stuck in uninterruptible sleep holds up neither the next kill nor anything
    /// else. A kill for memory has handed the victim's memory back with `process_mrelease` by then.
    static let killWaitOnLoop: Duration = .milliseconds(100)

    /// Kills the app's whole group. For a kill for memory, returns the major page faults the
    /// daemon took from the measurement that chose the victim to its kill (its own waits for
    /// storage; its memory is locked so that there are none), for the log line that explains
    /// the kill (`memoryDecisionLine`); other kills are logged here.
    func kill(_ app: String, reason: TerminationReason) async -> Int? {
        processes.frozenProcessLists[app] = nil
        processes.signalsSent[app, default: []].insert(SIGKILL)
        if options.dryRun {
            logger.notice("Dry run: would kill app \"\(app)\" (\(reason.rawValue)).")
            return nil
        }
        if driver == nil || processes.groups[app] == nil, let main = processes.running[app] {
            parts.launcher.send(SIGKILL, to: main.pid)
        }
        let releasingMemory = options.releasesMemoryOnKill && reason == .memoryPressure
        let faultsBefore = memoryWatch.faultsCountedFrom()
        await releaseGroup(app, killing: releasingMemory ? .releasingMemory : .signalOnly)
        guard reason == .memoryPressure else {
            logger.info("Killed app \"\(app)\" (\(reason.rawValue)).")
            return nil
        }
        return DaemonMemory.majorFaults() - faultsBefore
    }

    /// How `releaseGroup` treats what is still in the group.
    enum GroupRelease {
        /// The app ended on its own: processes still there were left behind, and are killed.
        case leftBehind
        /// The app is being killed.
        case signalOnly
        /// The app is being killed for memory: its memory is handed back at once.
        case releasingMemory
    }

    /// Forgets the app's group and removes it once it is empty.
    /// Processes the app left behind when its main process ended (children it started in the
    /// background) are killed with the group: an app that is not running runs nothing, and its
    /// next launch starts in an empty group. A group that cannot be emptied stays the app's,
    /// for the next release to retry; one whose processes are slow to die is removed once
    /// `KillFinisher` sees it empty.
    func releaseGroup(_ app: String, killing release: GroupRelease = .leftBehind) async {
        parts.memory.untrack(app)
        parts.signals.unwatch(app: app)
        processes.frozenProcessLists[app] = nil
        processes.limits[app] = nil
        processes.oomBaselines[app] = nil
        guard let group = processes.groups[app] else { return }
        if let driver, options.dryRun, !((try? await driver.processes(in: group)) ?? []).isEmpty { return }
        guard let driver else {
            processes.groups[app] = nil
            return
        }
        if await empty(group, of: app, with: driver, release: release) {
            processes.groups[app] = nil
        }
    }

    /// Kills what is left in `group`, waiting `killWaitOnLoop` at most, and removes it; false
    /// when it is not empty: it could not be killed, or its processes are still dying and
    /// `KillFinisher` waits for them.
    private func empty(
        _ group: AppGroup, of app: String, with driver: any CgroupDriver, release: GroupRelease = .leftBehind
    ) async -> Bool {
        if release == .leftBehind {
            let left = (try? await driver.processes(in: group)) ?? []
            if !left.isEmpty {
                logger.warning("Killing processes \(left) that app \"\(app)\" left behind when it ended.")
            } else {
                await remove(group, of: app, with: driver)
                return true
            }
        }
        do {
            try await driver.kill(
                group, releasingMemory: release == .releasingMemory, waitingAtMost: Self.killWaitOnLoop)
        } catch  where error.code == .timeout {
            if processes.dyingGroups.insert(app).inserted {
                logger.notice(
                    "The processes of app \"\(app)\" have not ended \(DurationFormat.string(Self.killWaitOnLoop)) after SIGKILL; waiting for them beside the loop."
                )
                workers.killFinisher.enqueue(KillFinisher.Request(app: app, group: group), inbox: inbox)
            }
            return false
        } catch {
            logger.error("Could not kill app \"\(app)\": \(error)")
            return false
        }
        await remove(group, of: app, with: driver)
        return true
    }

    /// Removes the empty `group`; a removal that fails is logged, and the group counts as released.
    private func remove(_ group: AppGroup, of app: String, with driver: any CgroupDriver) async {
        do {
            try await driver.remove(group)
        } catch {
            logger.debug("Could not remove the group of app \"\(app)\": \(error)")
        }
    }

    /// `KillFinisher` saw the killed group of `request.app` empty, or gave up on it: an empty
    /// group is removed, unless a new launch of the app runs in it by now.
    func killFinished(_ request: KillFinisher.Request, emptied: Bool) async {
        processes.dyingGroups.remove(request.app)
        guard processes.running[request.app] == nil, processes.groups[request.app] == request.group, let driver
        else { return }
        guard emptied else {
            let left = (try? await driver.processes(in: request.group)) ?? []
            logger.error(
                "The group of app \"\(request.app)\" still holds processes \(left) long after SIGKILL; it stays the app's, for its next release to retry."
            )
            return
        }
        await remove(request.group, of: request.app, with: driver)
        processes.groups[request.app] = nil
        logger.info("The last processes of app \"\(request.app)\" ended after SIGKILL; its group is removed.")
    }

    /// Keeps the limits the core set for the app's group and writes them to the group now if
    /// it exists; a group created for the next launch takes them before its process runs.
    func setMemoryLimits(_ app: String, _ limits: GroupMemoryLimits) async {
        processes.limits[app] = limits
        guard let driver, let group = processes.groups[app] else { return }
        do {
            try await driver.setMemoryLimits(Self.kernelLimits(limits), of: group)
        } catch {
            warnOnce(app, cause: "memory limits", "Could not set the memory limits of app \"\(app)\": \(error)")
        }
    }

    /// Keeps the CPU control the core set for the app's class and writes it to the group now if
    /// it exists; a group created for the next launch takes it before its process runs. A host
    /// without a CPU controller for the app groups is said once, at start.
    func setCPU(_ app: String, _ control: CPUControl) async {
        processes.cpu[app] = control
        guard let driver, let group = processes.groups[app] else { return }
        await applyCPU(app, to: group, with: driver)
    }

    /// Writes the app's CPU control, as the core last set it, to `group`.
    func applyCPU(_ app: String, to group: AppGroup, with driver: any CgroupDriver) async {
        guard let control = processes.cpu[app], driver.cpuController != .unavailable else { return }
        do {
            try await driver.setCPU(
                CPUControls(
                    weight: control.weight, idle: control.idle, maxPercent: control.maxPercent,
                    ioWeight: control.ioWeight), of: group)
        } catch {
            warnOnce(app, cause: "cpu controls", "Could not set the CPU controls of app \"\(app)\": \(error)")
        }
    }

    /// The CPU time the app's group has used; nil without a group or where the host cannot tell.
    func cpuUsage(of app: String) async -> Duration? {
        guard let driver, let group = processes.groups[app] else { return nil }
        do {
            return try await driver.cpuUsage(of: group)
        } catch {
            warnOnce(app, cause: "cpu usage", "Could not read the CPU time of app \"\(app)\": \(error)")
            return nil
        }
    }

    /// The core's limits as the driver writes them.
    static func kernelLimits(_ limits: GroupMemoryLimits) -> MemoryLimits {
        MemoryLimits(max: limits.max.map { UInt64(max(0, $0)) }, high: limits.high.map { UInt64(max(0, $0)) })
    }

    func setOOMScore(_ app: String, score: Int) async {
        let pids = await pids(of: app)
        guard !pids.isEmpty else { return }
        do {
            try parts.launcher.setOOMScore(score, for: pids)
        } catch {
            warnOnce(app, cause: "oom_score_adj", "Could not set oom_score_adj \(score) for app \"\(app)\": \(error)")
        }
    }

    /// The processes of the app: its group's, or its main process without a group.
    func pids(of app: String) async -> [Int32] {
        if let driver, let group = processes.groups[app] {
            return (try? await driver.processes(in: group)) ?? []
        }
        return processes.running[app].map { [$0.pid] } ?? []
    }

    // MARK: Watchdog and state

    /// What the watchdog finds: processes running and not frozen → foreground; frozen or
    /// gone → background; the scan failing → error.
    func scan(_ app: String) async -> ScanOutcome {
        guard let driver, let group = processes.groups[app] else {
            guard let pid = processes.running[app]?.pid else { return .background }
            return parts.launcher.exists(pid) ? .foreground : .background
        }
        do {
            let pids = try await driver.processes(in: group)
            if pids.isEmpty { return .background }
            return try await driver.isFrozen(group) ? .background : .foreground
        } catch {
            return .error
        }
    }

    func deleteRestorationState(_ app: String) {
        for path in [options.restorationDirectory(of: app), options.formerRestorationDirectory(of: app)] {
            do {
                if FileManager.default.fileExists(atPath: path) {
                    try FileManager.default.removeItem(atPath: path)
                }
            } catch {
                logger.warning("Could not delete the restoration directory \"\(path)\": \(error)")
            }
        }
    }

    /// Makes `app`'s folder and restoration directory ready for its launch, owned by the user it
    /// runs as (the daemon's own without one) and closed to other users; a failure is logged, and
    /// the launch goes on.
    func prepareFolder(of app: String, user: SpawnRequest.User?) -> AppFolder {
        let folder = AppFolder(of: app, options: options)
        // A user that cannot be found fails the spawn itself, with a sentence of its own.
        if user != nil, user?.ids == nil { return folder }
        let owner = user?.ids.map { (uid: uid_t($0.uid), gid: gid_t($0.gid)) } ?? (geteuid(), getegid())
        do {
            // The folder of all the apps' folders stays open for each app's user to pass through.
            let apps = String(folder.path[..<(folder.path.lastIndex(of: "/") ?? folder.path.endIndex)])
            try FileManager.default.createDirectory(atPath: apps, withIntermediateDirectories: true)
            try folder.prepare(owner: owner)
        } catch {
            warnOnce(app, cause: "folder", "Could not prepare the folder of app \"\(app)\": \(error)")
        }
        if let identity = user?.identity, let blocked = folder.blockedPassage(for: identity) {
            warnOnce(app, cause: "folder-reach", "App \"\(app)\": \(blocked)")
        }
        return folder
    }
}

extension WardenDaemon {
    /// Keeps the last kills for `GET /v1/device`, with the footprint the app had.
    func rememberKill(_ app: String, reason: TerminationReason) {
        let footprint = lifecycle.snapshot(of: app, at: now())?.footprint ?? 0
        history.remember(
            KillInfo(
                app: app, reason: reason.rawValue, footprintBytes: footprint, wallTimeMillis: wallMillis(now())))
    }

    /// Writes the app's task limit to its group; a host without a pids controller gets one
    /// warning per app, not one per launch.
    func boundTasks(_ app: String, to limit: Int?, of group: AppGroup, with driver: any CgroupDriver) async {
        do {
            try await driver.setTasksMax(limit, of: group)
        } catch {
            warnOnce(app, cause: "tasks_max", "Could not set the task limit of app \"\(app)\": \(error)")
        }
    }

    /// Logs a warning about `app` the first time `cause` brings it, then only a count of the
    /// repeats at most once a minute (`RepeatedWarningLimiter`).
    func warnOnce(_ app: String, cause: String, _ message: String) {
        switch history.warnings.admit(subject: app, cause: cause, at: parts.clock.elapsed()) {
        case .first: logger.warning("\(message)")
        case .repeated(let times): logger.warning("\(message) (repeated \(times) times)")
        case .suppressed: break
        }
    }
}
