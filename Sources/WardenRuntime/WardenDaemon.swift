import Foundation
public import Logging
import WardenAPI
import WardenCgroup
import WardenCore
import WardenPolicy

/// The daemon: one actor that owns the lifecycle core, feeds it every event in order, with the
/// time it happened on an injected monotonic clock, and carries out the actions it returns.
///
/// Events (operator verbs, app calls, timers, process exits, memory samples, pressure) pass
/// through one queue and are handled one at a time: an event's actions, and the events they
/// lead to (a spawn's readiness, a hold found at suspension, a scan's result), are carried out
/// before the next event is taken. After each event the core's checkpoint and the running
/// apps are saved, so a new daemon can re-adopt them.
public actor WardenDaemon {
    /// A running app: its record (what the checkpoint saves) and, for a process this daemon
    /// spawned, the handle to signal and reap it.
    struct RunningProcess: Sendable {
        var record: RunningAppRecord
        /// The spawned process (nil for one re-adopted after a restart).
        var process: SpawnedProcess?

        var launch: Int { record.launch }
        var pid: Int32 { record.pid }
    }

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
    let logger: Logger
    var policy: Policy
    var lifecycle: Lifecycle

    var groups: [String: AppGroup] = [:]
    var running: [String: RunningProcess] = [:]
    /// Signals appwarden sent to each app's processes since its launch (their ends are not crashes).
    var signalsSent: [String: Set<Int32>] = [:]
    var subscribers: [UInt64: (app: String?, continuation: AsyncStream<JournalEntry>.Continuation)] = [:]
    var nextSubscriberID: UInt64 = 0
    var timers: [TimerID: (generation: UInt64, task: Task<Void, Never>)] = [:]
    var timerGeneration: UInt64 = 0
    let sampler: MemorySampler
    let watcher = ProcessWatcher()
    var monitors: [PressureMonitor] = []
    var loops: [Task<Void, Never>] = []
    /// Events that the actions of the event being handled led to, handled right after it.
    var followUps: [LifecycleEvent] = []
    var isStopped = false
    /// Whether an event's actions are being carried out (the model may be ahead of the groups).
    var isHandling = false
    /// How many memory sweeps have run.
    var sweeps = 0
    /// Each app's current device token, as handed out by the core.
    var deviceTokens: [String: String] = [:]
    /// The locks that keep a second daemon from starting on the same state or cgroup root.
    var instanceLock: InstanceLock?
    /// Warnings that repeat (per app and cause) are logged once, then counted.
    var warningLimiter = RepeatedWarningLimiter()
    var jobs: AsyncStream<Job>.Continuation?
    var processor: Task<Void, Never>?

    init(
        options: WardenDaemonOptions, policy: Policy, clock: WardenClock, journal: any WardenJournal,
        driver: (any CgroupDriver)?, layout: CgroupLayout?, logger: Logger
    ) {
        self.options = options
        self.policy = policy
        self.lifecycle = Lifecycle(policy: policy, tokenSource: .systemRandom)
        self.clock = clock
        self.journalStore = journal
        self.driver = driver
        self.layout = layout
        self.logger = logger
        self.sampler = MemorySampler(logger: logger)
    }

    /// Loads the policy, opens the journal in the state directory, prepares the cgroups,
    /// re-adopts the apps a previous daemon left running and starts the event loop, the timers,
    /// the process watcher and the memory loop.
    ///
    /// - Parameters:
    ///   - options: What to run and where.
    ///   - clock: The monotonic clock timers run on.
    ///   - journal: The journal; by default `JournalStore` at `<state-dir>/appwarden.sqlite`.
    /// Before it touches anything (groups, processes, socket, journal) it takes the instance
    /// locks and checks that no daemon answers on the socket; a refused start changes nothing.
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
        var layout: CgroupLayout?
        var driver: (any CgroupDriver)?
        do {
            let found = try CgroupLayout.read()
            let made = try CgroupDrivers.make(
                layout: found, configuration: CgroupConfiguration(rootName: options.cgroupRoot), logger: logger)
            try await made.prepare()
            layout = found
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
            layout: layout, logger: logger)
        await daemon.boot(holding: lock)
        return daemon
    }

    private func boot(holding lock: InstanceLock) async {
        instanceLock = lock
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        jobs = continuation
        await readopt()
        processor = Task { [weak self] in
            for await job in stream {
                guard let self else {
                    job.answer?.resume(returning: .failure(Self.stoppingError))
                    continue
                }
                let result = await self.process(job.event)
                job.answer?.resume(returning: result)
            }
        }
        startLoops()
    }

    static let stoppingError = LifecycleError(.conflict, "appwarden is stopping and accepts no more calls.")

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
        guard !isStopped else { return }
        jobs?.yield(Job(event: event, answer: nil))
    }

    /// Queues an event and waits for its answer.
    func enqueue(_ event: LifecycleEvent) async -> Result<Reply?, LifecycleError> {
        guard !isStopped, let jobs else { return .failure(Self.stoppingError) }
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
        isHandling = true
        defer { isHandling = false }
        let reply = await execute(actions)
        noteDeviceToken(event, reply: reply)
        var changed = !actions.isEmpty
        while !followUps.isEmpty && !isStopped {
            let next = followUps.removeFirst()
            do {
                let more = try lifecycle.handle(next, at: now())
                changed = changed || !more.isEmpty
                await execute(more)
            } catch {
                logger.debug("The core refused \(next): \(error.message)")
            }
        }
        if changed || !Self.isSample(event) {
            saveCheckpoint()
        }
        return .success(reply)
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
        saveCheckpoint()
        isStopped = true
        jobs?.finish()
        for (_, timer) in timers { timer.task.cancel() }
        timers.removeAll()
        for loop in loops { loop.cancel() }
        loops.removeAll()
        for monitor in monitors { monitor.stop() }
        monitors.removeAll()
        watcher.stop()
        if options.stopAppsOnExit, let driver {
            for (name, group) in groups {
                do {
                    try await driver.kill(group)
                    try await driver.remove(group)
                } catch {
                    logger.warning("Could not stop app \"\(name)\": \(error)")
                }
            }
            groups.removeAll()
            try? await driver.removeRoot()
        }
        for (name, _) in groups { sampler.untrack(name) }
        for (_, subscriber) in subscribers { subscriber.continuation.finish() }
        subscribers.removeAll()
        instanceLock?.release()
        instanceLock = nil
    }
}
