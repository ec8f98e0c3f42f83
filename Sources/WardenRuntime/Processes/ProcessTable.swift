import WardenCgroup
import WardenCore

/// The daemon's table of the apps' groups and processes: each app's group, its running main
/// process and the signals sent to it since its launch.
struct ProcessTable {
    /// Each app's group, from its first launch (or re-adoption) until the group is released.
    var groups: [String: AppGroup] = [:]
    /// The running apps, by name.
    var running: [String: RunningProcess] = [:] {
        didSet { everyProcessWatchedAnswer = nil }
    }
    /// `everyProcessWatched()` as last worked out; nil once `running` changed.
    private var everyProcessWatchedAnswer: Bool?
    /// Signals appwarden sent to each app's processes since its launch (their ends are not crashes).
    var signalsSent: [String: Set<Int32>] = [:]
    /// The processes of suspended apps whose groups this daemon froze, read once after the
    /// freeze for the app list (a frozen group cannot fork); dropped when the app is frozen
    /// again, thawed, killed or ends. Never used to signal processes.
    var frozenProcessLists: [String: (launch: Int, pids: [Int32])] = [:]
    /// What each app's group said of OOM kills when it was created or adopted: a kill is
    /// recognized by the counters rising above these.
    var oomBaselines: [String: GroupOOMState?] = [:]
    /// The memory limits the core set for each app's group (`LifecycleAction.setMemoryLimits`),
    /// applied to the group a launch creates.
    var limits: [String: GroupMemoryLimits] = [:]
    /// The CPU control the core set for each app's class (`LifecycleAction.setCPU`), applied to
    /// the group a launch creates.
    var cpu: [String: CPUControl] = [:]
    /// The apps whose killed group `KillFinisher` waits for, beside the loop.
    var dyingGroups: Set<String> = []

    /// The OOM kill the app's group counted since its baseline, as its counters now say
    /// (`state`), with the figures the journal gives; nil when there was none. Taken once: the
    /// counters are the new baseline.
    mutating func takeOOMKill(of app: String, state: GroupOOMState) -> OOMKill? {
        let baseline = oomBaselines[app] ?? nil
        guard state.killedSince(baseline) else { return nil }
        oomBaselines[app] = state
        return OOMKill(
            limit: state.reachedLimitSince(baseline) ? state.limit.map { Int64(clamping: $0) } : nil,
            peak: state.peak.map { Int64(clamping: $0) })
    }

    /// Whether the launcher watches every running app's process; worked out again only after
    /// `running` changed, since the memory watch asks at every measurement (a thousand
    /// suspended apps are a thousand running processes).
    mutating func everyProcessWatched() -> Bool {
        if let everyProcessWatchedAnswer { return everyProcessWatchedAnswer }
        let answer = running.values.allSatisfy(\.isWatched)
        everyProcessWatchedAnswer = answer
        return answer
    }
}

/// A running app: its record (what the checkpoint saves) and, for a process this daemon
/// spawned, the handle to signal and reap it.
struct RunningProcess: Sendable {
    var record: RunningAppRecord
    /// Whether the launcher watches it (false only where a re-adopted process could not be
    /// watched through a pidfd; the memory sweeps then look for its end).
    var isWatched: Bool

    var launch: Int { record.launch }
    var pid: Int32 { record.pid }
}
