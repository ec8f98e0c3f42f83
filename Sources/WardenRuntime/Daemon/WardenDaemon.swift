import FoundationEssentials
import Glibc
public import Logging
public import ServiceLifecycle
import WardenAPI
import WardenCgroup
public import WardenCore
import WardenPolicy

/// The daemon: a `Service` whose `run()` owns every loop in one task group, and one queue of
/// jobs (`DaemonInbox`) taken one at a time, so that the core's model and the host never go
/// apart and nothing needs a guard against re-entry.
///
/// Every input is a job: an operator verb or an app call (`perform`), a read (`control`'s `apps`,
/// `explain`, …), a wake of the alarm (timers and the memory watch), a kernel signal, a process
/// that began to run or ended. A job is carried out whole, the events its actions lead to
/// included (a spawn's readiness, a hold found at suspension, a scan's result), before the next
/// is taken; after each event the core's checkpoint and the running apps are saved, so a new
/// daemon can re-adopt them. The task group's children only post jobs: the alarm, the kernel's
/// memory signals, the hooks, journal retention, and when serving, the control socket, the
/// metrics listener and the service manager's watchdog.
public actor WardenDaemon: Service {
    /// Where the daemon is in its life.
    enum Phase {
        /// Made, holding its locks; `run()` has not started.
        case ready(InstanceLock?)
        /// Running, holding its locks.
        case running(InstanceLock?)
        /// Stopped: it takes no more events.
        case stopped

        var isRunning: Bool {
            if case .running = self { return true }
            return false
        }
    }

    public nonisolated let options: WardenDaemonOptions
    /// Whether the policy was read from `options.policyPath` (`make`), rather than given in code
    /// (a daemon in virtual time), so that a policy file it cannot read is worth a warning.
    nonisolated let policyFromFile: Bool
    nonisolated let parts: DaemonParts
    nonisolated let inbox: DaemonInbox
    /// The daemon's Prometheus metrics (`GET /metrics`), on a registry of its own.
    public nonisolated let metrics: WardenMetrics
    /// What runs beside the loop: the policy's hooks, the compression of suspended apps.
    nonisolated let workers: DaemonWorkers
    /// The lifecycle core: the one source of every rule and setting.
    var lifecycle: Lifecycle
    /// The apps' groups and processes, and what the core's actions do to them.
    let processes: AppProcesses
    /// The core's armed timers.
    var timers = DaemonTimers()
    /// The memory watch: the core's plan of it and what it armed.
    var memoryWatch: MemoryWatch
    /// The journal and the followers of the event stream.
    var journal: DaemonJournal
    var phase: Phase
    /// The last kills and the warnings already logged.
    var history = DaemonHistory()

    /// Runs the policy's hooks in the background.
    public nonisolated var hooks: HookRunner { workers.hooks }

    /// The control API's answers (`WardenControl`): reads as jobs on this daemon's loop, and its
    /// `perform`.
    public nonisolated var control: DaemonControl { DaemonControl(daemon: self) }

    /// The policy in force: the core's.
    var policy: Policy { lifecycle.policy }
    var logger: Logger { parts.logger }
    var clock: WardenClock { parts.clock }
    var driver: (any CgroupDriver)? { parts.driver }

    /// Makes a daemon on `parts` with `policy`, holding `lock`; nothing runs until `run()`.
    public init(options: WardenDaemonOptions, policy: Policy, parts: DaemonParts) {
        self.init(options: options, policy: policy, parts: parts, lock: nil, policyFromFile: false)
    }

    init(options: WardenDaemonOptions, policy: Policy, parts: DaemonParts, lock: InstanceLock?, policyFromFile: Bool) {
        self.options = options
        self.policyFromFile = policyFromFile
        self.parts = parts
        self.lifecycle = Lifecycle(policy: policy, tokenSource: parts.tokenSource)
        self.journal = DaemonJournal(store: parts.journal)
        self.memoryWatch = MemoryWatch(
            plan: MemoryWatchPlan(
                sampleInterval: options.sampleInterval, freezerCheckSweeps: options.freezerCheckSweeps,
                suspendedCheckSweeps: options.suspendedSampleSweeps))
        self.phase = .ready(lock)
        let metrics = WardenMetrics()
        self.metrics = metrics
        let inbox = DaemonInbox()
        self.inbox = inbox
        let killFinisher = KillFinisher(timeout: CgroupConfiguration().killTimeout)
        self.processes = AppProcesses(
            parts: parts, killFinisher: killFinisher, inbox: inbox, dryRun: options.dryRun,
            releasesMemoryOnKill: options.releasesMemoryOnKill)
        self.workers = DaemonWorkers(
            hooks: HookRunner(
                logger: parts.logger, metrics: metrics, baseEnvironment: HookRunner.environment(options: options)),
            compressor: SuspendedCompressor(),
            killFinisher: killFinisher,
            pressureEndpoints: PressureEndpoints(directory: options.pressureDirectory))
    }

    /// Makes the daemon `appwarden serve` runs: loads the policy, takes the instance locks, opens
    /// the journal in the state directory and prepares the cgroups.
    ///
    /// Before it touches anything (groups, processes, socket, journal) it takes the instance
    /// locks and checks that no daemon answers on the socket; a refused start changes nothing.
    ///
    /// - Throws: `WardenDaemonError` naming the policy problems, the daemon already running (with
    ///   its pid), or the state directory or cgroup root that could not be set up.
    public static func make(
        options: WardenDaemonOptions, clock: some Clock<Duration> = ContinuousClock(),
        journal: (any WardenJournal)? = nil, logger: Logger = Logger(label: "appwarden.daemon")
    ) async throws(WardenDaemonError) -> WardenDaemon {
        let policy: Policy
        do {
            policy = try PolicyLoader.load(path: options.policyPath)
        } catch {
            throw WardenDaemonError("The policy \"\(options.policyPath)\" cannot be used:\n\(error.description)")
        }
        let lock = try InstanceLock.acquire(options: options)
        OpenFileLimit.raise(logger: logger)
        if let listener = ControlServer.SocketFile.listener(path: options.socketPath) {
            lock.release()
            throw WardenDaemonError(
                "The control socket \"\(options.socketPath)\" is already answered by \(listener.description); stop it "
                    + "first or choose another socket.")
        }
        for directory in ["/logs", "/apps"] {
            let path = options.stateDirectory + directory
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                lock.release()
                throw WardenDaemonError("The state directory \"\(path)\" cannot be created: \(error).")
            }
        }
        let store: any WardenJournal
        if let journal {
            store = journal
        } else {
            let path = options.stateDirectory + "/appwarden.sqlite"
            do {
                store = try JournalStore(path: path)
            } catch {
                lock.release()
                throw WardenDaemonError("The journal \"\(path)\" cannot be opened: \(error).")
            }
        }
        var driver: (any CgroupDriver)?
        do {
            let found = try CgroupLayout.read()
            let made = try CgroupDrivers.make(
                layout: found, configuration: CgroupConfiguration(rootName: options.cgroupRoot), logger: logger)
            try await made.prepare()
            driver = made
        } catch {
            if !options.dryRun {
                lock.release()
                throw WardenDaemonError(
                    "The cgroup root \"\(options.cgroupRoot)\" cannot be set up (\(error)); appwarden needs root "
                        + "and a mounted cgroup file system, or --dry-run to run without freezing or killing.")
            }
            logger.warning("Running without cgroups: \(error)")
        }
        if let absence = LogRelayProgram.absence { logger.warning("\(absence)") }
        for problem in LogDirectory.close(options.logDirectory, operators: options.serving?.adminGroup) {
            logger.warning("\(problem)")
        }
        let parts = DaemonParts(
            clock: WardenClock(clock), alarm: ClockAlarm(), journal: store, driver: driver,
            launcher: SpawningProcessLauncher(), memory: CgroupMemorySource(driver: driver, logger: logger),
            signals: KernelMemorySignals(driver: driver, stall: options.pressureStall, logger: logger),
            devices: KernelDeviceEvents(), logger: logger)
        return WardenDaemon(options: options, policy: policy, parts: parts, lock: lock, policyFromFile: true)
    }

    /// Makes the host's daemon (`make`) and runs it in a task of its own until `stop()`, for
    /// callers that are not a `ServiceGroup` (tests and benchmarks); returns once it has re-adopted
    /// what a previous daemon left running and takes calls.
    public static func start(
        options: WardenDaemonOptions, clock: some Clock<Duration> = ContinuousClock(),
        journal: (any WardenJournal)? = nil, logger: Logger = Logger(label: "appwarden.daemon")
    ) async throws(WardenDaemonError) -> WardenDaemon {
        let daemon = try await make(options: options, clock: clock, journal: journal, logger: logger)
        await daemon.startRunning()
        return daemon
    }

    /// Runs `run()` in a task of its own and returns once the daemon takes calls: the one task
    /// of the runtime that no task group owns, for callers that are not a `ServiceGroup`.
    public nonisolated func startRunning() async {
        Task { try? await self.run() }
        _ = await onLoop { _ in }
    }

    /// Runs the daemon until a graceful shutdown (SIGTERM or SIGINT under a `ServiceGroup`) or
    /// `stop()`: re-adopts what a previous daemon left running, then takes jobs one at a time
    /// while its task group runs the alarm, the kernel's memory signals, the hooks, journal
    /// retention and, when `options.serving` asks, the control socket, the metrics listener and
    /// the service manager's watchdog.
    ///
    /// - Throws: The control socket's or the metrics listener's failure, after the daemon has
    ///   stopped (saving its checkpoint and leaving the apps running for the next start).
    public func run() async throws {
        guard case .ready(let lock) = phase else { return }
        phase = .running(lock)
        parts.launcher.report { [inbox] report in inbox.post(.process(report)) }
        parts.signals.connect { [inbox] signal in inbox.post(.memory(signal)) }
        parts.devices?.start(posting: inbox, logger: logger)
        memoryWatch.plan.freezerGivesNotice = processes.startFreezeNotices()
        if options.locksMemory { MemoryWatch.shedStartUpPages(logger: logger) }
        await boot()
        var cutIntoPages: [DaemonMemory.MappingRange] = []
        if options.locksMemory {
            // What only the boot ran (the checkpoint's decoding, re-adoption, the first
            // launches) is let go of too; a measurement and the checkpoint's save touch again
            // what the watch and the journal run from now on, before the lock keeps it. Until
            // the lock, the code's mappings are cut into pages, so that what is mapped then is
            // what was read, not 64 KiB around it.
            cutIntoPages = MemoryWatch.shedStartUpPages(cuttingIntoPages: true, logger: logger)
            await measure()
        }
        saveCheckpoint()
        if options.locksMemory {
            await KillRehearsal(
                policy: policy, driver: driver, dryRun: options.dryRun,
                releasesMemoryOnKill: options.releasesMemoryOnKill, logger: logger
            ).run()
            memoryWatch.lockDaemonMemory(joining: cutIntoPages, logger: logger)
        }
        var failure: (any Error)?
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    startChildren(in: &group)
                    await consume()
                    group.cancelAll()
                }
            } onGracefulShutdown: { [inbox, options, logger] in
                let status =
                    options.stopAppsOnExit
                    ? "Stopping: stopping every app." : "Stopping: saving the state and leaving the apps running."
                logger.info("\(status)")
                options.serving?.notifier.stopping(status: status)
                inbox.post(.stop(done: nil))
            }
        } catch {
            failure = error
        }
        if phase.isRunning { await shutDown() }
        if let failure { throw failure }
    }

    /// The children of `run()`'s task group: each loop posts jobs and nothing else.
    private func startChildren(in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        let inbox = inbox
        let parts = parts
        group.addTask { await parts.alarm.run(clock: parts.clock) { inbox.post(.wake) } }
        group.addTask { await parts.signals.run() }
        let workers = workers
        group.addTask { await workers.hooks.run(clock: parts.clock) }
        group.addTask { await workers.compressor.run(driver: parts.driver, inbox: inbox, logger: parts.logger) }
        group.addTask { await workers.killFinisher.run(driver: parts.driver, clock: parts.clock, inbox: inbox) }
        if let store = parts.journal as? JournalStore {
            group.addTask {
                await store.keepPruned(clock: parts.clock, logger: parts.logger) {
                    await self.onLoop { daemon in daemon.policy.journal }
                }
            }
        }
        if let serving = options.serving {
            serve(serving, in: &group)
        }
    }

    /// Takes the jobs one at a time until the inbox closes; after a stop, what is left is answered
    /// as a stopping daemon answers.
    private func consume() async {
        for await job in inbox.jobs {
            switch job {
            case .event(let event, let answer):
                // An open that may make room first is weighed against memory measured now
                // (one measurement), not against a sample from up to a slow poll ago.
                if case .open(let app) = event, lifecycle.weighsRoomBeforeOpening(app) { await measure() }
                let result = await process(event)
                saveCheckpoint(deferrable: answer == nil)
                answer?.resume(returning: result)
            case .work(let body):
                await body(self)
            case .wake:
                await wake()
            case .memory(let signal):
                await memorySignal(signal)
            case .process(let report):
                await processReport(report)
            case .stop(let done):
                if phase.isRunning { await shutDown() }
                done?.resume()
            }
            if phase.isRunning {
                saveCheckpoint()
                rearmAlarm()
            }
            inbox.finished()
        }
    }

    static let stoppingError = LifecycleError(
        .unavailable, "appwarden is stopping and accepts no more calls; try again once it has started again.")

    /// Stops the daemon and returns once it has stopped: no more events are taken, the kernel's
    /// signals and the process watcher let go, and the apps keep running for the next start,
    /// unless `options.stopAppsOnExit` asks to kill them. Jobs queued before are carried out.
    public nonisolated func stop() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if !inbox.post(.stop(done: done)) { done.resume() }
        }
    }

    /// What a stop does, once, on the loop.
    private func shutDown() async {
        guard case .running(let lock) = phase else { return }
        let leftRunning = options.stopAppsOnExit ? [] : processes.table.running.keys.sorted()
        record(app: JournalEntry.systemApp, .system(.daemonStopped(leftRunning: leftRunning)))
        saveCheckpoint(ifDue: false)
        phase = .stopped
        inbox.close()
        parts.alarm.set(nil)
        timers.stop()
        parts.signals.stop()
        parts.devices?.stop()
        processes.freezeNotices?.stop()
        parts.launcher.stop()
        workers.hooks.stop()
        workers.compressor.stop()
        workers.killFinisher.stop()
        workers.pressureEndpoints.closeAll()
        DaemonLifeLog(logger: logger, options: options).stopped(
            stoppedApps: options.stopAppsOnExit, lifecycle: lifecycle, running: processes.table.running)
        if options.stopAppsOnExit, driver == nil {
            // Without cgroups (a dry run without root) an app is its main process, as a kill of
            // it without cgroups signals only that.
            for (_, entry) in processes.table.running { _ = parts.launcher.send(SIGKILL, to: entry.pid) }
        }
        if options.stopAppsOnExit, let driver {
            for (name, group) in processes.table.groups {
                do {
                    try await driver.kill(group)
                    try await driver.remove(group)
                } catch {
                    logger.warning("Could not stop app \"\(name)\": \(error)")
                }
            }
            processes.table.groups.removeAll()
            try? await driver.removeRoot()
        }
        for (name, _) in processes.table.groups { parts.memory.untrack(name) }
        journal.subscribers.finishAll()
        lock?.release()
    }
}
