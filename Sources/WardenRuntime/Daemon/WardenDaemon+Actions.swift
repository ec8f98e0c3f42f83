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
        metrics.count(actions, at: clock.now())
        for action in LifecycleAction.inCarryingOutOrder(actions) {
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
                history.remember(
                    KillInfo(
                        app: app, reason: reason.rawValue,
                        footprintBytes: lifecycle.snapshot(of: app, at: clock.now())?.footprint ?? 0,
                        wallTimeMillis: clock.wallMillis(clock.now())))
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
                timers.arm(timer, deadline: deadline)
            case .cancelTimer(let timer):
                timers.cancel(timer)
            case .publishStatus(let app, let status):
                record(app: app, .status(status))
            case .scan(let app):
                followUps.append(.scanResult(app: app, outcome: await processes.scan(app)))
            case .journal(let journalRecord):
                MemoryDecisionLog.log(journalRecord, faults: faultsByVictim[journalRecord.app], to: logger)
                journal.append(
                    NewJournalEntry(
                        app: journalRecord.app, event: AppEvent(journalRecord.kind),
                        wallTimeMillis: clock.wallMillis(journalRecord.time)), logger: logger)
            case .deleteRestorationState(let app):
                AppFolder.deleteRestorationState(of: app, options: options, logger: logger)
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

    // MARK: Signals for messages

    /// Sends the app's main process the signal its policy maps `message`'s kind to, if any
    /// (`signals`), for apps that keep no connection to read their event stream.
    func sendMappedSignal(_ app: String, for message: AppMessage) {
        guard let kind = message.signalKind, let signal = policy.app(named: app)?.signals[kind],
            let main = processes.table.running[app]
        else { return }
        if !processes.signalMain(of: app, signal) {
            logger.error("Could not send signal \(signal) to app \"\(app)\" (process \(main.pid)) for \(kind).")
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
        let (folder, problems) = AppFolder.ready(for: app, user: user, options: options)
        for problem in problems { processes.warnOnce(app, cause: problem.cause, problem.message) }
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
        if let watch = workers.pressureEndpoints.open(app: app, user: appPolicy.user, logger: logger) {
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
            followUps += lifecycle.footprintEvents(of: [app], measuring: { parts.memory.measurements(of: $0) })
        case .notFrozen:
            break
        }
    }

    /// Hands a frozen app to the compressor, beside the loop (never in a dry run).
    func compress(_ app: String, launch: Int) {
        guard let group = processes.table.groups[app], !options.dryRun else { return }
        workers.compressor.enqueue(SuspendedCompressor.Request(app: app, launch: launch, group: group), inbox: inbox)
    }
}
