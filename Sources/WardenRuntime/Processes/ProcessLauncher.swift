import Synchronization
public import WardenCgroup

/// Starts the apps' processes, reports their ends and inspects them: what the daemon asks of
/// the host's processes.
///
/// `SpawningProcessLauncher` does it for real (`ProcessSpawner`, `ProcessWatcher`, signals,
/// `/proc`); `WardenTesting` has a launcher of simulated processes for tests in virtual time.
public protocol ProcessLauncher: Sendable {
    /// Hands every report from now on to `sink`, in the order noticed: the ends of launched and
    /// watched processes, and launched processes that began to run after `launch` returned.
    /// Reports made before are kept and handed over at once. Called once, before the first launch.
    func report(to sink: @escaping @Sendable (ProcessReport) -> Void)

    /// Starts the process `request` describes, as launch `launch` of `app`, in `request.group`
    /// when it names one, and watches it until it ends.
    ///
    /// - Returns: The process id, and whether the process runs already (its program was
    ///   executed); one that does not is reported on `starts` when it does.
    func launch(_ request: SpawnRequest, app: String, launch: Int) throws -> LaunchedProcess

    /// Watches process `pid`, launch `launch` of `app`, started by an earlier daemon, until it
    /// ends; returns false when it cannot, and the daemon's memory sweeps look for its end.
    func watch(pid: Int32, app: String, launch: Int) -> Bool

    /// Sends `signal` to process `pid`; returns whether it was delivered.
    @discardableResult
    func send(_ signal: Int32, to pid: Int32) -> Bool

    /// Whether process `pid` exists.
    func exists(_ pid: Int32) -> Bool

    /// The ways the processes `pids` hold the file at `path` open or locked.
    func holds(of path: String, among pids: [Int32]) throws -> [ResourceHolders.Hold]

    /// Sets the kernel OOM killer's score adjustment of the processes `pids`.
    func setOOMScore(_ score: Int, for pids: [Int32]) throws

    /// Stops watching (the processes keep running) and reports nothing more.
    func stop()
}

/// What a launcher reports about its processes.
public enum ProcessReport: Sendable, Equatable {
    /// A launched process began to run.
    case started(ProcessStart)
    /// A launched or watched process ended.
    case ended(ProcessExit)
}

/// Where a launcher's reports go: kept until the daemon takes them, then handed on at once, on
/// the thread that sends them.
public final class ProcessReportSink: Sendable {
    private struct State {
        var sink: (@Sendable (ProcessReport) -> Void)?
        var kept: [ProcessReport] = []
        var isStopped = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Hands every report from now on to `sink`, the kept ones first.
    public func connect(_ sink: @escaping @Sendable (ProcessReport) -> Void) {
        let kept = state.withLock { state -> [ProcessReport] in
            state.sink = sink
            defer { state.kept.removeAll() }
            return state.kept
        }
        for report in kept { sink(report) }
    }

    /// Hands `report` on, or keeps it until a sink is connected; nothing once stopped.
    public func send(_ report: ProcessReport) {
        let sink = state.withLock { state -> (@Sendable (ProcessReport) -> Void)? in
            guard !state.isStopped else { return nil }
            if state.sink == nil { state.kept.append(report) }
            return state.sink
        }
        sink?(report)
    }

    /// Hands nothing on from now on.
    public func stop() {
        state.withLock {
            $0.isStopped = true
            $0.sink = nil
            $0.kept.removeAll()
        }
    }
}

/// A watched process that ended.
public struct ProcessExit: Sendable, Equatable {
    public var app: String
    public var launch: Int
    public var pid: Int32
    /// How it ended; nil when it could not be reaped (it was not appwarden's child).
    public var termination: SpawnedProcess.Termination?

    public init(app: String, launch: Int, pid: Int32, termination: SpawnedProcess.Termination?) {
        self.app = app
        self.launch = launch
        self.pid = pid
        self.termination = termination
    }
}

/// A process `ProcessLauncher.launch` started.
public struct LaunchedProcess: Sendable, Equatable {
    public var pid: Int32
    /// Whether it runs already; false until it is reported on `ProcessLauncher.starts`.
    public var isRunning: Bool

    public init(pid: Int32, isRunning: Bool) {
        self.pid = pid
        self.isRunning = isRunning
    }
}

/// A launched process that began to run.
public struct ProcessStart: Sendable, Equatable {
    public var app: String
    public var launch: Int
    public var pid: Int32

    public init(app: String, launch: Int, pid: Int32) {
        self.app = app
        self.launch = launch
        self.pid = pid
    }
}
