import Foundation
public import Logging
import WardenAPI
public import WardenCgroup
public import WardenCore
import WardenPolicy
import WardenSimulator

/// The daemon: one actor that owns the lifecycle core, feeds it every event in order, with the
/// time it happened on an injected monotonic clock, and carries out the actions it returns.
///
/// Events (operator verbs, app calls, timers, process exits, memory samples, pressure) pass
/// through one queue and are handled one at a time: an event's actions, and the events they
/// lead to (a spawn's readiness, a hold found at suspension, a scan's result), are carried out
/// before the next event is taken. After each event the core's checkpoint and the running
/// apps are saved, so a new daemon can re-adopt them.
public actor WardenDaemon {
    /// An event waiting its turn, and whoever waits for its answer.
    struct Job: Sendable {
        var event: LifecycleEvent
        var answer: CheckedContinuation<Result<Reply?, LifecycleError>, Never>?
    }

    public nonisolated let options: WardenDaemonOptions
    let clock: WardenClock
    let journalStore: any WardenJournal
    let driver: (any CgroupDriver)?
    let layout: CgroupLayout?
    let launcher: any ProcessLauncher
    let memory: any WardenMemorySource
    let logger: Logger
    /// The policy in force: the core's, the one source of every rule and setting.
    var policy: Policy { lifecycle.policy }
    var lifecycle: Lifecycle

    /// The apps' groups and processes.
    var processes = ProcessTable()
    /// The followers of the event stream.
    var subscribers = EventSubscribers()
    /// The core's armed timers and the one task that fires them.
    var timers = DaemonTimers()
    /// When the loops sleeping on the clock (`timers`, `sweep`) wake next, since the origin.
    var wakes: [String: Duration] = [:]
    /// Process ends taken from the launcher.
    var exitsHandled = 0
    /// Process starts taken from the launcher.
    var startsHandled = 0
    var monitors: [PressureMonitor] = []
    /// Measurements of the device's memory between sweeps (`WardenDaemon+MemoryWatch`).
    var memoryWatch = MemoryWatchState()
    var loops: [Task<Void, Never>] = []
    /// The events waiting their turn and the one being handled.
    var eventQueue = DaemonEventQueue()
    var isStopped = false
    /// How many memory sweeps have run.
    var sweeps = 0
    /// The locks that keep a second daemon from starting on the same state or cgroup root.
    var instanceLock: InstanceLock?
    /// The last kills, oldest first, for `GET /v1/device` (at most `recentKillLimit`).
    var recentKills: [KillInfo] = []
    static let recentKillLimit = 10
    /// Warnings that repeat (per app and cause) are logged once, then counted.
    var warningLimiter = RepeatedWarningLimiter()
    /// Where new device tokens come from: the system's random source, or a deterministic one
    /// in tests that replay scenarios naming tokens.
    let tokenSource: DeviceTokenSource
    /// The daemon's Prometheus metrics (`GET /metrics`), on a registry of its own.
    public nonisolated let metrics: WardenMetrics
    /// Runs the policy's hooks in the background.
    public nonisolated let hooks: HookRunner

    init(
        options: WardenDaemonOptions, policy: Policy, clock: WardenClock, journal: any WardenJournal,
        driver: (any CgroupDriver)?, launcher: any ProcessLauncher, memory: any WardenMemorySource,
        tokenSource: DeviceTokenSource = .systemRandom, logger: Logger
    ) {
        self.options = options
        self.tokenSource = tokenSource
        self.lifecycle = Lifecycle(policy: policy, tokenSource: tokenSource)
        self.clock = clock
        self.journalStore = journal
        self.driver = driver
        self.layout = driver?.layout
        self.launcher = launcher
        self.memory = memory
        self.logger = logger
        let metrics = WardenMetrics()
        self.metrics = metrics
        self.hooks = HookRunner(
            logger: logger, metrics: metrics, baseEnvironment: Self.hookEnvironment(options: options))
    }

    /// Loads the policy, opens the journal in the state directory, prepares the cgroups,
    /// re-adopts the apps a previous daemon left running and starts the event loop, the timers,
    /// the process watcher and the memory loop.
    ///
    /// Before it touches anything (groups, processes, socket, journal) it takes the instance
    /// locks and checks that no daemon answers on the socket; a refused start changes nothing.
    ///
    /// - Parameters:
    ///   - options: What to run and where.
    ///   - clock: The monotonic clock timers run on.
    ///   - journal: The journal; by default `JournalStore` at `<state-dir>/appwarden.sqlite`.
    ///
    /// - Throws: `WardenDaemonError` naming the policy problems, the daemon already running (with
    ///   its pid), or the state directory or cgroup root that could not be set up.
    public static func start(
        options: WardenDaemonOptions,
        clock: some Clock<Duration> = ContinuousClock(),
        journal: (any WardenJournal)? = nil,
        logger: Logger = Logger(label: "appwarden.daemon")
    ) async throws(WardenDaemonError) -> WardenDaemon {
        let policy: Policy
        do {
            policy = try PolicyLoader.load(path: options.policyPath)
        } catch {
            throw WardenDaemonError("The policy \"\(options.policyPath)\" cannot be used:\n\(error.description)")
        }
        for directory in ["", "/logs", "/restoration"] {
            let path = options.stateDirectory + directory
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw WardenDaemonError("The state directory \"\(path)\" cannot be created: \(error).")
            }
        }
        let lock = try InstanceLock.acquire(options: options)
        if ControlServer.SocketFile.isListening(path: options.socketPath) {
            throw WardenDaemonError(
                "A daemon already answers on the control socket \"\(options.socketPath)\"; stop it first or "
                    + "choose another socket.")
        }
        let store: any WardenJournal
        if let journal {
            store = journal
        } else {
            let path = options.stateDirectory + "/appwarden.sqlite"
            do {
                store = try JournalStore(path: path)
            } catch {
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
                throw WardenDaemonError(
                    "The cgroup root \"\(options.cgroupRoot)\" cannot be set up (\(error)); appwarden needs root "
                        + "and a mounted cgroup file system, or --dry-run to run without freezing or killing.")
            }
            logger.warning("Running without cgroups: \(error)")
        }
        let daemon = WardenDaemon(
            options: options, policy: policy, clock: WardenClock(clock), journal: store, driver: driver,
            launcher: SpawningProcessLauncher(), memory: CgroupMemorySource(driver: driver, logger: logger),
            logger: logger)
        await daemon.boot(holding: lock)
        return daemon
    }

    /// Starts a daemon on parts the caller provides: the policy, the clock, the journal, the
    /// cgroup driver, the process launcher and the memory source. Nothing is read from or
    /// created on disk but the apps' restoration directories under `options.stateDirectory`.
    ///
    /// Tests run the daemon in virtual time this way, with `WardenTesting`'s `ManualClock`,
    /// fake driver and fake launcher; `start(options:clock:journal:logger:)` passes the host's.
    ///
    /// - Parameters:
    ///   - driver: The cgroups; nil runs without groups (only with `options.dryRun`, as a host
    ///     without cgroups would).
    ///   - tokenSource: Where device tokens come from (the system's random source by default).
    public static func start(
        options: WardenDaemonOptions,
        policy: Policy,
        clock: some Clock<Duration>,
        journal: any WardenJournal,
        driver: (any CgroupDriver)?,
        launcher: any ProcessLauncher,
        memory: any WardenMemorySource,
        tokenSource: DeviceTokenSource = .systemRandom,
        logger: Logger = Logger(label: "appwarden.daemon")
    ) async -> WardenDaemon {
        let daemon = WardenDaemon(
            options: options, policy: policy, clock: WardenClock(clock), journal: journal, driver: driver,
            launcher: launcher, memory: memory, tokenSource: tokenSource, logger: logger)
        await daemon.boot()
        return daemon
    }

    private func boot(holding lock: InstanceLock? = nil) async {
        instanceLock = lock
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        eventQueue.jobs = continuation
        await readopt()
        record(
            app: JournalEntry.systemApp,
            .system(.daemonStarted(version: WardenVersion.current, readopted: processes.running.keys.sorted())))
        logStartup(adopted: processes.running.keys.sorted())
        // Intervals (the first fetch wakes) count from the start, as in the simulator.
        await execute(lifecycle.start(at: now()))
        eventQueue.processor = Task { [weak self] in
            for await job in stream {
                guard let self else {
                    job.answer?.resume(returning: .failure(Self.stoppingError))
                    continue
                }
                let result = await self.handle(job.event)
                job.answer?.resume(returning: result)
            }
        }
        startLoops()
    }

    /// Handles a queued event and counts it off.
    private func handle(_ event: LifecycleEvent) async -> Result<Reply?, LifecycleError> {
        let result = await process(event)
        eventQueue.queued -= 1
        return result
    }

    static let stoppingError = LifecycleError(
        .unavailable, "appwarden is stopping and accepts no more calls; try again once it has started again.")

    /// The core's clock now.
    func now() -> Instant {
        Instant(sinceOrigin: clock.elapsed())
    }

    /// The wall-clock time of `instant`, in milliseconds since the epoch.
    func wallMillis(_ instant: Instant) -> Int64 {
        clock.wallMillis(atElapsed: instant.sinceOrigin)
    }

    /// Queues an event that nobody waits for (a timer, a process exit, a sample).
    func submit(_ event: LifecycleEvent) {
        guard !isStopped, let jobs = eventQueue.jobs else { return }
        if case .enqueued = jobs.yield(Job(event: event, answer: nil)) {
            eventQueue.queued += 1
        }
    }

    /// Queues an event and waits for its answer.
    func enqueue(_ event: LifecycleEvent) async -> Result<Reply?, LifecycleError> {
        guard !isStopped, let jobs = eventQueue.jobs else { return .failure(Self.stoppingError) }
        // Counted before it is queued: the queue ends only when the daemon stops.
        eventQueue.queued += 1
        return await withCheckedContinuation { answer in
            if case .terminated = jobs.yield(Job(event: event, answer: answer)) {
                answer.resume(returning: .failure(Self.stoppingError))
            }
        }
    }

    /// Handles one event and every event its actions lead to, then saves the checkpoint.
    func process(_ event: LifecycleEvent) async -> Result<Reply?, LifecycleError> {
        guard !isStopped else { return .failure(Self.stoppingError) }
        let actions: [LifecycleAction]
        do {
            actions = try lifecycle.handle(event, at: now())
        } catch {
            return .failure(error)
        }
        eventQueue.isHandling = true
        eventQueue.journalBatch = []
        defer { finishHandling() }
        metrics.count(accepted: event)
        let reply = await execute(actions)
        var changed = !actions.isEmpty
        while !eventQueue.followUps.isEmpty && !isStopped {
            let next = eventQueue.followUps.removeFirst()
            do {
                let more = try lifecycle.handle(next, at: now())
                changed = changed || !more.isEmpty
                await execute(more)
            } catch {
                logger.debug("The core refused \(next): \(error.message)")
            }
        }
        flushJournal()
        if changed || !Self.isSample(event) {
            saveCheckpoint()
        }
        memoryWatchAfterEvent(event)
        return .success(reply)
    }

    /// Ends the handling of an event and lets the reads that waited for it answer.
    private func finishHandling() {
        flushJournal()
        eventQueue.isHandling = false
        let reads = eventQueue.waitingReads
        eventQueue.waitingReads.removeAll()
        for read in reads { read.resume() }
    }

    /// Returns once no event is being carried out: the model and the groups agree, so a read
    /// (status, explain) says what is, never what is about to be. Reads are not events, and do
    /// not wait for the events queued behind.
    func betweenEvents() async {
        while eventQueue.isHandling {
            await withCheckedContinuation { eventQueue.waitingReads.append($0) }
        }
    }

    private static func isSample(_ event: LifecycleEvent) -> Bool {
        switch event {
        case .footprint, .memorySample: true
        default: false
        }
    }

    /// Stops the daemon: no more events are taken, timers and loops end, the process watcher
    /// lets go of its processes, and the apps keep running for the next start, unless
    /// `options.stopAppsOnExit` asks to kill them.
    public func stop() async {
        guard !isStopped else { return }
        let leftRunning = options.stopAppsOnExit ? [] : processes.running.keys.sorted()
        record(app: JournalEntry.systemApp, .system(.daemonStopped(leftRunning: leftRunning)))
        saveCheckpoint()
        isStopped = true
        eventQueue.jobs?.finish()
        timers.stop()
        wakes.removeAll()
        for loop in loops { loop.cancel() }
        loops.removeAll()
        for monitor in monitors { monitor.stop() }
        monitors.removeAll()
        stopMemoryWatch()
        launcher.stop()
        logShutdown(stoppedApps: options.stopAppsOnExit && driver != nil)
        if options.stopAppsOnExit, let driver {
            for (name, group) in processes.groups {
                do {
                    try await driver.kill(group)
                    try await driver.remove(group)
                } catch {
                    logger.warning("Could not stop app \"\(name)\": \(error)")
                }
            }
            processes.groups.removeAll()
            try? await driver.removeRoot()
        }
        for (name, _) in processes.groups { memory.untrack(name) }
        subscribers.finishAll()
        instanceLock?.release()
        instanceLock = nil
    }
}
