import Synchronization
public import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The host's processes: spawns with `ProcessSpawner`, watches ends with `ProcessWatcher`'s
/// pidfds, signals its children through their pidfds (others with `kill(2)`), finds holds in
/// `/proc` and writes `oom_score_adj`.
public final class SpawningProcessLauncher: ProcessLauncher {
    private let watcher: ProcessWatcher
    /// The spawned processes that have not ended yet, by pid.
    private let spawned = SpawnedProcesses()

    private final class SpawnedProcesses: Sendable {
        let byPID = Mutex<[Int32: SpawnedProcess]>([:])
    }
    /// Where ends go; processes begin to run before `launch` returns, so no start is reported.
    private let reports = ProcessReportSink()

    /// Starts the watcher's thread, which reports each end from that thread.
    public init() {
        let spawned = spawned
        let reports = reports
        watcher = ProcessWatcher { exit in
            _ = spawned.byPID.withLock { $0.removeValue(forKey: exit.pid) }
            reports.send(
                .ended(ProcessExit(app: exit.app, launch: exit.launch, pid: exit.pid, termination: exit.termination)))
        }
    }

    public func report(to sink: @escaping @Sendable (ProcessReport) -> Void) {
        reports.connect(sink)
    }

    public func launch(_ request: SpawnRequest, app: String, launch: Int) throws -> LaunchedProcess {
        let process = try ProcessSpawner().spawn(request)
        spawned.byPID.withLock { $0[process.pid] = process }
        watcher.watch(process, app: app, launch: launch)
        return LaunchedProcess(pid: process.pid, isRunning: true)
    }

    /// Re-adopted processes are watched through a pidfd (`pidfd_open`) like spawned ones; their
    /// end comes without a status, since only their parent could read it.
    public func watch(pid: Int32, app: String, launch: Int) -> Bool {
        watcher.watch(pid: pid, app: app, launch: launch)
        return true
    }

    public func send(_ signal: Int32, to pid: Int32) -> Bool {
        if let process = spawned.byPID.withLock({ $0[pid] }) {
            return (try? process.send(signal: signal)) != nil
        }
        return Glibc.kill(pid, signal) == 0
    }

    public func exists(_ pid: Int32) -> Bool {
        Glibc.kill(pid, 0) == 0
    }

    public func holds(of path: String, among pids: [Int32]) throws -> [ResourceHolders.Hold] {
        try ResourceHolders().holds(of: path, among: pids)
    }

    public func setOOMScore(_ score: Int, for pids: [Int32]) throws {
        _ = try OOMScoreAdjuster().set(score, for: pids)
    }

    public func stop() {
        watcher.stop()
        reports.stop()
    }
}
