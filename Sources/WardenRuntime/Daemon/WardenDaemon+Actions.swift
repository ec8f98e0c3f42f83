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
                followUps.append(.stallMeasured(app: app, launch: launch, total: await processes.stall(of: app)))
            case .thaw(let app):
                await processes.thaw(app)
            case .terminate(let app, let reason):
                await processes.terminate(app, reason: reason)
            case .kill(let app, let reason):
                rememberKill(app, reason: reason)
                faultsByVictim[app] = await processes.kill(
                    app, reason: reason, faultsBefore: memoryWatch.faultsCountedFrom())
            case .setOOMScore(let app, _, let score):
                await processes.setOOMScore(app, score: score)
            case .setMemoryLimits(let app, let limits):
                await processes.setMemoryLimits(app, limits)
            case .setCPU(let app, _, let control):
                await processes.setCPU(app, control)
            case .measureCPU(let app, let launch):
                followUps.append(.cpuMeasured(app: app, launch: launch, usage: await processes.cpuUsage(of: app)))
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
                followUps.append(.scanResult(app: app, outcome: await processes.scan(app)))
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
            let main = processes.table.running[app]
        else { return }
        if !processes.signalMain(of: app, signal) {
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
        processes.table.signalsSent[app] = []
        var group: AppGroup?
        do {
            group = try await processes.prepareGroup(of: app, launch: launch, tasksMax: appPolicy.tasksMax.count)
            let log = options.logPath(of: app)
            let launched = try parts.launcher.launch(
                SpawnRequest(
                    executable: command, arguments: appPolicy.args, environment: environment,
                    workingDirectory: appPolicy.workingDirectory, user: user,
                    standardOutputPath: log, standardErrorPath: log, group: group,
                    logRotation: LogRotation(maxSize: policy.logs.maxSize, keep: policy.logs.keep)),
                app: app, launch: launch)
            processes.started(
                app, launch: launch, pid: launched.pid, group: group, wallMillis: parts.clock.wallMillis())
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
            await processes.launchFailed(app, group: group)
            followUps.append(.spawnFailed(app: app, launch: launch, message: "\(error)"))
        }
    }

    // MARK: Freezing

    /// Freezes the app's group; a process holding one of `guardPaths` keeps it running, which
    /// the core hears of. A frozen app is measured at once: suspended apps are otherwise
    /// measured only now and then, and the killer ranks them by this figure.
    func freeze(_ app: String, guardPaths: [ResourcePath], followUps: inout [LifecycleEvent]) async {
        switch await processes.freeze(app, guardPaths: guardPaths) {
        case .held(let resource):
            followUps.append(.heldAtSuspension(app: app, resource: resource))
        case .frozen:
            if let measurement = parts.memory.measurements(of: [app])[app],
                let event = MemoryWatch.footprintEvent(app, measurement, known: lifecycle.footprint(of: app))
            {
                followUps.append(event)
            }
        case .notFrozen:
            break
        }
    }

    /// Hands a frozen app to the compressor, beside the loop (never in a dry run).
    func compress(_ app: String, launch: Int) {
        guard let group = processes.table.groups[app], !options.dryRun else { return }
        workers.compressor.enqueue(SuspendedCompressor.Request(app: app, launch: launch, group: group), inbox: inbox)
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
            processes.warnOnce(app, cause: "folder", "Could not prepare the folder of app \"\(app)\": \(error)")
        }
        if let identity = user?.identity, let blocked = folder.blockedPassage(for: identity) {
            processes.warnOnce(app, cause: "folder-reach", "App \"\(app)\": \(blocked)")
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
}
