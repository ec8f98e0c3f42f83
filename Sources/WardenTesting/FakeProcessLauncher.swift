import Synchronization
public import WardenCgroup
public import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A process launcher that starts no process: each launch is a simulated process with a pid of
/// its own, placed in its group of the `FakeCgroupDriver`, that runs until the test makes it exit
/// or crash, a SIGTERM or SIGKILL reaches it, or the driver kills its group. Its end is reported
/// to the daemon at once, on the caller's thread, as the real watcher reports a reaped child:
/// whatever the test does is queued for the daemon before the test's next step.
public final class FakeProcessLauncher: ProcessLauncher, Sendable {
    /// One launch as the daemon asked for it.
    public struct Launch: Sendable, Equatable {
        public var app: String
        public var launch: Int
        public var pid: Int32
        public var request: SpawnRequest
    }

    struct Process {
        var app: String
        var launch: Int
        var isWatched: Bool
        var isRunning: Bool
    }

    struct State {
        var nextPID: Int32 = 100_000
        var processes: [Int32: Process] = [:]
        var launches: [Launch] = []
        var signals: [(pid: Int32, signal: Int32)] = []
        var oomScores: [Int32: Int] = [:]
        var heldPaths: [String: Set<String>] = [:]
        var failures: [String: String] = [:]
        var exitsReported = 0
        var startsReported = 0
        var delayedStarts: Set<String> = []
        var launchDurations: [String: Duration] = [:]
        var isStopped = false
    }

    let state = Mutex(State())
    let driver: FakeCgroupDriver?
    private let reports = ProcessReportSink()

    /// Makes a launcher whose processes live in `driver`'s groups (nil: processes without groups).
    public init(driver: FakeCgroupDriver?) {
        self.driver = driver
        driver?.onKill { [weak self] pids in
            for pid in pids { self?.end(pid, .signaled(SIGKILL)) }
        }
    }

    // MARK: What the test sees and does

    /// Every launch so far, in order.
    public var launches: [Launch] { state.withLock { $0.launches } }

    /// Every signal sent so far, in order.
    public var signals: [(pid: Int32, signal: Int32)] { state.withLock { $0.signals } }

    /// The OOM score last set for `pid`.
    public func oomScore(of pid: Int32) -> Int? {
        state.withLock { $0.oomScores[pid] }
    }

    /// How many process ends have been reported.
    public var exitsReported: Int { state.withLock { $0.exitsReported } }

    /// How many process starts have been reported.
    public var startsReported: Int { state.withLock { $0.startsReported } }

    /// Hands `report` to the daemon, or keeps it until the daemon connects.
    private func send(_ report: ProcessReport) {
        reports.send(report)
    }

    /// Makes `app`'s launched processes wait for `start(_:)` before they run (they run at
    /// once otherwise), as a program slow to start does.
    public func setStartsDelayed(_ delayed: Bool, app: String) {
        state.withLock { state in
            if delayed { state.delayedStarts.insert(app) } else { state.delayedStarts.remove(app) }
        }
    }

    /// Makes each launch of `app` block its caller for `duration` of real time before it returns,
    /// as a spawn does that waits for `execve` on a slow device (nil: returns at once).
    public func setLaunchDuration(_ duration: Duration?, app: String) {
        state.withLock { $0.launchDurations[app] = duration }
    }

    /// Lets app `app`'s launched process run, reported to the daemon; returns whether one was waiting.
    @discardableResult
    public func start(_ app: String) -> Bool {
        let started = state.withLock { state -> ProcessStart? in
            guard
                let (pid, process) = state.processes.filter({ $0.value.app == app && !$0.value.isRunning })
                    .max(by: { $0.value.launch < $1.value.launch })
            else { return nil }
            state.processes[pid]?.isRunning = true
            if !state.isStopped { state.startsReported += 1 }
            return ProcessStart(app: app, launch: process.launch, pid: pid)
        }
        guard let started else { return false }
        send(.started(started))
        return true
    }

    /// The pid of app `app`'s running process, if one runs.
    public func pid(of app: String) -> Int32? {
        state.withLock { state in
            state.processes.filter { $0.value.app == app }.max { $0.value.launch < $1.value.launch }?.key
        }
    }

    /// Whether a simulated process of `app` runs.
    public func isRunning(_ app: String) -> Bool { pid(of: app) != nil }

    /// Takes over the simulated processes that `earlier` still runs, the apps a stopped daemon
    /// left running: the same pids and launches, in groups of the same names in this launcher's
    /// driver, frozen as they were in `earlier`'s driver, for a restarted daemon to re-adopt.
    public func takeOver(from earlier: FakeProcessLauncher) {
        let left = earlier.state.withLock { $0.processes }.sorted { $0.key < $1.key }
        state.withLock { state in
            for (pid, process) in left {
                state.processes[pid] = Process(
                    app: process.app, launch: process.launch, isWatched: false, isRunning: process.isRunning)
                state.nextPID = max(state.nextPID, pid)
            }
        }
        for (pid, process) in left {
            driver?.takeOver(pid, in: process.app, frozen: earlier.driver?.isFrozen(process.app) ?? false)
        }
    }

    /// Makes app `app`'s processes keep the files at `paths` open (found when it is frozen).
    public func setHeldPaths(_ paths: Set<String>, app: String) {
        state.withLock { $0.heldPaths[app] = paths }
    }

    /// Makes launches of `app` fail with `message` (nil: succeed again).
    public func setLaunchFailure(_ message: String?, app: String) {
        state.withLock { $0.failures[app] = message }
    }

    /// Ends app `app`'s running process with exit status `status`; returns whether one ran.
    @discardableResult
    public func exit(_ app: String, status: Int32 = 0) -> Bool {
        guard let pid = pid(of: app) else { return false }
        end(pid, .exited(status))
        return true
    }

    /// Ends app `app`'s running process as a crash (SIGSEGV); returns whether one ran.
    @discardableResult
    public func crash(_ app: String) -> Bool {
        guard let pid = pid(of: app) else { return false }
        end(pid, .signaled(SIGSEGV))
        return true
    }

    /// Ends process `pid` and reports it when it is watched.
    func end(_ pid: Int32, _ termination: SpawnedProcess.Termination) {
        let ended = state.withLock { state -> Process? in
            guard let process = state.processes.removeValue(forKey: pid) else { return nil }
            if process.isWatched && !state.isStopped { state.exitsReported += 1 }
            return process
        }
        guard let ended else { return }
        driver?.processEnded(pid)
        if ended.isWatched {
            send(.ended(ProcessExit(app: ended.app, launch: ended.launch, pid: pid, termination: termination)))
        }
    }

    // MARK: ProcessLauncher

    public func report(to sink: @escaping @Sendable (ProcessReport) -> Void) {
        reports.connect(sink)
    }

    public func launch(_ request: SpawnRequest, app: String, launch: Int) throws -> LaunchedProcess {
        if let duration = state.withLock({ $0.launchDurations[app] }) {
            let (seconds, attoseconds) = duration.components
            var asked = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&asked, &left) != 0 && errno == EINTR { asked = left }
        }
        let launched = try state.withLock { state throws(CgroupError) -> LaunchedProcess in
            if let message = state.failures[app] {
                throw CgroupError(code: .notFound, message: message, cause: "fake launch")
            }
            state.nextPID += 1
            let pid = state.nextPID
            let isRunning = !state.delayedStarts.contains(app)
            state.processes[pid] = Process(app: app, launch: launch, isWatched: true, isRunning: isRunning)
            state.launches.append(Launch(app: app, launch: launch, pid: pid, request: request))
            return LaunchedProcess(pid: pid, isRunning: isRunning)
        }
        if let group = request.group, let driver {
            try driver.place(launched.pid, in: group.name)
        }
        return launched
    }

    /// Watches a simulated process; false for a pid the launcher does not know.
    public func watch(pid: Int32, app: String, launch: Int) -> Bool {
        state.withLock { state in
            guard state.processes[pid] != nil else { return false }
            state.processes[pid]?.isWatched = true
            return true
        }
    }

    /// Records the signal; SIGTERM and SIGKILL end the process at once (as in the simulator),
    /// reported as ended by that signal.
    public func send(_ signal: Int32, to pid: Int32) -> Bool {
        let exists = state.withLock { state -> Bool in
            state.signals.append((pid, signal))
            return state.processes[pid] != nil
        }
        guard exists else { return false }
        if signal == SIGTERM || signal == SIGKILL {
            end(pid, .signaled(signal))
        }
        return true
    }

    public func exists(_ pid: Int32) -> Bool {
        state.withLock { $0.processes[pid] != nil }
    }

    public func holds(of path: String, among pids: [Int32]) throws -> [ResourceHolders.Hold] {
        state.withLock { state in
            pids.sorted().compactMap { pid in
                guard let app = state.processes[pid]?.app, state.heldPaths[app]?.contains(path) == true else {
                    return nil
                }
                return ResourceHolders.Hold(pid: pid, kind: .open(descriptor: 3, target: path))
            }
        }
    }

    public func setOOMScore(_ score: Int, for pids: [Int32]) throws {
        state.withLock { state in
            for pid in pids { state.oomScores[pid] = score }
        }
    }

    public func stop() {
        state.withLock { $0.isStopped = true }
        reports.stop()
    }
}
