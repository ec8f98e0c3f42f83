import Logging
import WardenCgroup
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The apps' groups and processes: the table of them (`ProcessTable`) and what the core's actions
/// do to them on the host: a launch's group made ready (limits, CPU class, task limit), freezing
/// and thawing, the signals that stop an app, the kill of a group and its removal, the memory
/// limits, CPU controls and OOM scores written to it, and what is read of it (its processes, its
/// CPU time, its stall, the watchdog's scan).
///
/// Owned by the daemon's actor and used only from it: its asynchronous methods run on the
/// caller's executor (`nonisolated(nonsending)`), so nothing else runs between their steps but
/// what the daemon's own awaits allow.
final class AppProcesses {
    /// The groups, the running processes and what was set and sent.
    var table = ProcessTable()
    /// The apps' groups; nil runs without groups.
    let driver: (any CgroupDriver)?
    /// The kernel's notices that the apps' groups were frozen or thawed, where the freezer gives
    /// them and groups are frozen (not in a dry run); `WardenDaemon.run()` starts them.
    let freezeNotices: FreezeNotices?
    private let launcher: any ProcessLauncher
    private let memory: any WardenMemorySource
    private let signals: any MemorySignalSource
    private let killFinisher: KillFinisher
    private let inbox: DaemonInbox
    private let clock: WardenClock
    private let logger: Logger
    /// Whether groups are left alone: nothing frozen, thawed or killed (`--dry-run`).
    private let dryRun: Bool
    /// Whether a kill for memory hands the victim's memory back at once (`process_mrelease`).
    private let releasesMemoryOnKill: Bool
    /// Warnings that repeat (per app and cause) are logged once, then counted.
    private var warnings = RepeatedWarningLimiter()

    init(
        parts: DaemonParts, killFinisher: KillFinisher, inbox: DaemonInbox, dryRun: Bool, releasesMemoryOnKill: Bool
    ) {
        driver = parts.driver
        freezeNotices = dryRun ? nil : parts.driver?.freezeNotices()
        launcher = parts.launcher
        memory = parts.memory
        signals = parts.signals
        clock = parts.clock
        logger = parts.logger
        self.killFinisher = killFinisher
        self.inbox = inbox
        self.dryRun = dryRun
        self.releasesMemoryOnKill = releasesMemoryOnKill
    }

    /// Starts the kernel's notices that the apps' groups were frozen or thawed: each posts a
    /// job that sets the group right if it is not what the core says. False where the freezer
    /// gives no notice (or the notices could not start, which is logged): then the memory watch
    /// looks at the groups.
    func startFreezeNotices() -> Bool {
        guard let freezeNotices else { return false }
        let inbox = inbox
        do {
            try freezeNotices.start { app in
                _ = inbox.post(.work { daemon in await daemon.reconcileFreezer(of: [app]) })
            }
            return true
        } catch {
            logger.warning("\(error.message) Frozen and thawed groups are looked for every few seconds instead.")
            return false
        }
    }

    // MARK: Launching

    /// Makes the group of the app's launch `launch` ready before its process is spawned in it:
    /// created, with the memory limits and CPU control the core set and the task limit `tasksMax`;
    /// nil without groups.
    nonisolated(nonsending) func prepareGroup(of app: String, launch: Int, tasksMax: Int?) async throws -> AppGroup? {
        guard let driver else { return nil }
        // The previous launch's end, if reported from now on, must not release the new group.
        if let previous = table.running[app], previous.launch != launch {
            table.running[app] = nil
        }
        let created = try await driver.createGroup(named: app)
        if let limits = table.limits[app], !limits.isEmpty {
            try await driver.setMemoryLimits(Self.kernelLimits(limits), of: created)
        }
        await applyCPU(app, to: created, with: driver)
        await boundTasks(app, to: tasksMax, of: created, with: driver)
        table.groups[app] = created
        return created
    }

    /// The app's launch runs as process `pid` in `group`: it is measured and watched for OOM kills
    /// from now on.
    func started(_ app: String, launch: Int, pid: Int32, group: AppGroup?, wallMillis: Int64) {
        table.running[app] = RunningProcess(
            record: RunningAppRecord(app: app, launch: launch, pid: pid, group: group, startedWallMillis: wallMillis),
            isWatched: true)
        if let group { watch(app, group: group) }
    }

    /// A launch that did not start leaves no group behind.
    nonisolated(nonsending) func launchFailed(_ app: String, group: AppGroup?) async {
        if let driver, let group, await empty(group, of: app, with: driver) {
            table.groups[app] = nil
        }
    }

    /// Measures the app's group from now on, watches it for OOM kills and, where the kernel
    /// gives notice of it, for being frozen or thawed, and notes its OOM counters, against which
    /// a kill is recognized.
    func watch(_ app: String, group: AppGroup) {
        memory.track(group)
        signals.watch(app: app, group: group)
        freezeNotices?.watch(group)
        table.oomBaselines[app] = memory.oomState(of: app)
    }

    // MARK: Ends

    /// Exit 0 or a signal appwarden sent → exited; SIGKILL that the app's group counted as an OOM
    /// kill → the kernel's OOM kill (at the group's own limit or not); a non-zero status or
    /// another signal → crashed.
    func classify(_ termination: SpawnedProcess.Termination?, app: String) -> ProcessEnd {
        switch termination {
        case nil: return oomKill(of: app).map(ProcessEnd.oomKilled) ?? .exited(code: 0)
        case .exited(0): return .exited(code: 0)
        case .exited(let status): return .crashed(description: "exited with status \(status)")
        case .signaled(let signal):
            if table.signalsSent[app]?.contains(signal) == true { return .exited(code: 128 + signal) }
            if signal == SIGKILL, let kill = oomKill(of: app) {
                logger.notice("App \"\(app)\": \(kill.sentence)")
                return .oomKilled(kill)
            }
            return .crashed(description: "ended by signal \(signal)")
        }
    }

    /// The OOM kill the app's group counted since its launch, with the figures the journal
    /// gives; nil when there was none. Taken once: the counters are the new baseline.
    func oomKill(of app: String) -> OOMKill? {
        memory.oomState(of: app).flatMap { table.takeOOMKill(of: app, state: $0) }
    }

    /// The ends of re-adopted processes the launcher could not watch (no pidfd), found by
    /// reaping them if they are children or by finding their group empty.
    nonisolated(nonsending) func unwatchedProcessesEnded() async -> [ProcessExit] {
        var exits: [ProcessExit] = []
        guard !table.everyProcessWatched() else { return [] }
        for (app, entry) in table.running.sorted(by: { $0.key < $1.key }) where !entry.isWatched {
            var status: Int32 = 0
            let reaped = waitpid(entry.pid, &status, WNOHANG)
            var termination: SpawnedProcess.Termination?
            var ended = false
            if reaped == entry.pid {
                ended = true
                termination = (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
            } else if let driver, let group = table.groups[app] {
                ended = ((try? await driver.processes(in: group)) ?? [entry.pid]).isEmpty
            } else {
                ended = !launcher.exists(entry.pid)
            }
            if ended {
                exits.append(ProcessExit(app: app, launch: entry.launch, pid: entry.pid, termination: termination))
            }
        }
        return exits
    }

    // MARK: Re-adoption

    /// Adopts launch `launch` of `app`, which a previous daemon left running (`saved`, its
    /// record in the checkpoint, if any): its group's processes, its main process watched
    /// through a pidfd (`ProcessWatcher.watch(pid:app:launch:)`) so that its end is noticed at
    /// once, its memory watched, and its group frozen or thawed as the model says. False when
    /// its processes are gone.
    nonisolated(nonsending) func adopt(
        _ app: String, launch: Int, suspended: Bool, saved entry: RunningAppRecord?
    ) async -> Bool {
        let group = entry?.group ?? driver?.group(named: app)
        var pids: [Int32] = []
        if let driver, let group {
            pids = (try? await driver.processes(in: group)) ?? []
        }
        guard !pids.isEmpty else { return false }
        table.groups[app] = group
        let mainPID = entry.flatMap { pids.contains($0.pid) ? $0.pid : nil } ?? pids[0]
        table.running[app] = RunningProcess(
            record: RunningAppRecord(
                app: app, launch: launch, pid: mainPID, group: group,
                startedWallMillis: entry?.startedWallMillis ?? clock.wallMillis()),
            isWatched: launcher.watch(pid: mainPID, app: app, launch: launch))
        if let group { watch(app, group: group) }
        if let driver, let group, !dryRun {
            let frozen = (try? await driver.isFrozen(group)) ?? false
            if suspended && !frozen {
                try? await driver.freeze(group)
            } else if !suspended && frozen {
                try? await driver.thaw(group)
            }
        }
        return true
    }

    /// Kills processes found in the groups of apps that the model does not run: apps of the
    /// policy (`declared`), and apps of the last checkpoint (`registered`) that the policy no
    /// longer declares (which the previous daemon ran, suspended ones included), each with a
    /// log line that says which.
    nonisolated(nonsending) func killStrays(declared: [String], registered: [String]) async {
        guard let driver else { return }
        let undeclared = registered.filter { !declared.contains($0) }
        for app in declared + undeclared where table.groups[app] == nil {
            let group = driver.group(named: app)
            guard let pids = try? await driver.processes(in: group), !pids.isEmpty else { continue }
            if declared.contains(app) {
                logger.warning("Killing processes \(pids) left in the group of app \"\(app)\", which is not running.")
            } else {
                logger.warning(
                    "Killing processes \(pids) of app \"\(app)\", which was running under the previous policy: the policy no longer declares it."
                )
            }
            if !dryRun {
                try? await driver.kill(group)
                try? await driver.remove(group)
            }
        }
    }

    // MARK: Freezing

    /// What came of a freeze.
    enum FreezeOutcome {
        /// The group is frozen.
        case frozen
        /// A process of the app holds `resource`, one of the paths it may not hold while
        /// suspended: it is left running.
        case held(resource: String)
        /// Not frozen: no group, a dry run, or the freezer failed (logged).
        case notFrozen
    }

    /// Freezes the app's group, unless a process of it holds one of `guardPaths`.
    nonisolated(nonsending) func freeze(_ app: String, guardPaths: [ResourcePath]) async -> FreezeOutcome {
        table.frozenProcessLists[app] = nil
        guard let driver, let group = table.groups[app] else {
            logger.warning("Cannot freeze app \"\(app)\": it has no group.")
            return .notFrozen
        }
        if !guardPaths.isEmpty {
            do {
                let pids = try await driver.processes(in: group)
                for guarded in guardPaths {
                    if let hold = try launcher.holds(of: guarded.path, among: pids).first {
                        logger.info("Not freezing app \"\(app)\": \(hold) (resource \"\(guarded.resource)\").")
                        return .held(resource: guarded.resource)
                    }
                }
            } catch {
                logger.warning("Could not check the resources of app \"\(app)\" before freezing: \(error)")
            }
        }
        if dryRun {
            logger.notice("Dry run: would freeze app \"\(app)\".")
            return .notFrozen
        }
        do {
            try await driver.freeze(group)
        } catch {
            logger.error("Could not freeze app \"\(app)\": \(error)")
            return .notFrozen
        }
        return .frozen
    }

    nonisolated(nonsending) func thaw(_ app: String) async {
        table.frozenProcessLists[app] = nil
        guard let driver, let group = table.groups[app], !dryRun else { return }
        do {
            try await driver.thaw(group)
        } catch {
            logger.error("Could not thaw app \"\(app)\": \(error)")
        }
    }

    // MARK: Ending processes

    /// Sends `signal` to the app's main process, counting it among those appwarden sent (its end
    /// is then no crash); false when it runs none or the signal could not be sent.
    @discardableResult
    func signalMain(of app: String, _ signal: Int32) -> Bool {
        guard let main = table.running[app] else { return false }
        table.signalsSent[app, default: []].insert(signal)
        return launcher.send(signal, to: main.pid)
    }

    /// Sends SIGTERM to each of the app's processes.
    nonisolated(nonsending) func terminate(_ app: String, reason: TerminationReason) async {
        table.signalsSent[app, default: []].insert(SIGTERM)
        for pid in await pids(of: app) {
            launcher.send(SIGTERM, to: pid)
        }
        logger.info("Asked app \"\(app)\" to stop (\(reason.rawValue)).")
    }

    /// How long a kill waits on the daemon's loop for the app's group to empty, as lmkd's
    /// `kill_timeout_ms`: past it the loop goes on and `KillFinisher` waits for the rest beside it,
    /// so that a victim stuck in uninterruptible sleep holds up neither the next kill nor anything
    /// else. A kill for memory has handed the victim's memory back with `process_mrelease` by then.
    static let killWaitOnLoop: Duration = .milliseconds(100)

    /// Kills the app's whole group. For a kill for memory, returns the major page faults the
    /// daemon took since `faultsBefore` (the count when the measurement that chose the victim
    /// began: its own waits for storage; its memory is locked so that there are none), for the
    /// log line that explains the kill; other kills are logged here.
    nonisolated(nonsending) func kill(_ app: String, reason: TerminationReason, faultsBefore: Int) async -> Int? {
        table.frozenProcessLists[app] = nil
        table.signalsSent[app, default: []].insert(SIGKILL)
        if dryRun {
            logger.notice("Dry run: would kill app \"\(app)\" (\(reason.rawValue)).")
            return nil
        }
        if driver == nil || table.groups[app] == nil, let main = table.running[app] {
            launcher.send(SIGKILL, to: main.pid)
        }
        let releasingMemory = releasesMemoryOnKill && reason == .memoryPressure
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
    nonisolated(nonsending) func releaseGroup(_ app: String, killing release: GroupRelease = .leftBehind) async {
        memory.untrack(app)
        signals.unwatch(app: app)
        freezeNotices?.unwatch(app)
        table.frozenProcessLists[app] = nil
        table.limits[app] = nil
        table.oomBaselines[app] = nil
        guard let group = table.groups[app] else { return }
        if let driver, dryRun, !((try? await driver.processes(in: group)) ?? []).isEmpty { return }
        guard let driver else {
            table.groups[app] = nil
            return
        }
        if await empty(group, of: app, with: driver, release: release) {
            table.groups[app] = nil
        }
    }

    /// Kills what is left in `group`, waiting `killWaitOnLoop` at most, and removes it; false
    /// when it is not empty: it could not be killed, or its processes are still dying and
    /// `KillFinisher` waits for them.
    private nonisolated(nonsending) func empty(
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
            if table.dyingGroups.insert(app).inserted {
                logger.notice(
                    "The processes of app \"\(app)\" have not ended \(DurationFormat.string(Self.killWaitOnLoop)) after SIGKILL; waiting for them beside the loop."
                )
                killFinisher.enqueue(KillFinisher.Request(app: app, group: group), inbox: inbox)
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
    private nonisolated(nonsending) func remove(_ group: AppGroup, of app: String, with driver: any CgroupDriver) async
    {
        do {
            try await driver.remove(group)
        } catch {
            logger.debug("Could not remove the group of app \"\(app)\": \(error)")
        }
    }

    /// `KillFinisher` saw the killed group of `request.app` empty, or gave up on it: an empty
    /// group is removed, unless a new launch of the app runs in it by now.
    nonisolated(nonsending) func killFinished(_ request: KillFinisher.Request, emptied: Bool) async {
        table.dyingGroups.remove(request.app)
        guard table.running[request.app] == nil, table.groups[request.app] == request.group, let driver
        else { return }
        guard emptied else {
            let left = (try? await driver.processes(in: request.group)) ?? []
            logger.error(
                "The group of app \"\(request.app)\" still holds processes \(left) long after SIGKILL; it stays the app's, for its next release to retry."
            )
            return
        }
        await remove(request.group, of: request.app, with: driver)
        table.groups[request.app] = nil
        logger.info("The last processes of app \"\(request.app)\" ended after SIGKILL; its group is removed.")
    }

    // MARK: Controls

    /// Keeps the limits the core set for the app's group and writes them to the group now if
    /// it exists; a group created for the next launch takes them before its process runs.
    nonisolated(nonsending) func setMemoryLimits(_ app: String, _ limits: GroupMemoryLimits) async {
        table.limits[app] = limits
        guard let driver, let group = table.groups[app] else { return }
        do {
            try await driver.setMemoryLimits(Self.kernelLimits(limits), of: group)
        } catch {
            warnOnce(app, cause: "memory limits", "Could not set the memory limits of app \"\(app)\": \(error)")
        }
    }

    /// Keeps the CPU control the core set for the app's class and writes it to the group now if
    /// it exists; a group created for the next launch takes it before its process runs. A host
    /// without a CPU controller for the app groups is said once, at start.
    nonisolated(nonsending) func setCPU(_ app: String, _ control: CPUControl) async {
        table.cpu[app] = control
        guard let driver, let group = table.groups[app] else { return }
        await applyCPU(app, to: group, with: driver)
    }

    /// Writes the app's CPU control, as the core last set it, to `group`.
    nonisolated(nonsending) func applyCPU(_ app: String, to group: AppGroup, with driver: any CgroupDriver) async {
        guard let control = table.cpu[app], driver.cpuController != .unavailable else { return }
        do {
            try await driver.setCPU(
                CPUControls(
                    weight: control.weight, idle: control.idle, maxPercent: control.maxPercent,
                    ioWeight: control.ioWeight), of: group)
        } catch {
            warnOnce(app, cause: "cpu controls", "Could not set the CPU controls of app \"\(app)\": \(error)")
        }
    }

    /// Writes the app's task limit to its group; a host without a pids controller gets one
    /// warning per app, not one per launch.
    private nonisolated(nonsending) func boundTasks(
        _ app: String, to limit: Int?, of group: AppGroup, with driver: any CgroupDriver
    ) async {
        do {
            try await driver.setTasksMax(limit, of: group)
        } catch {
            warnOnce(app, cause: "tasks_max", "Could not set the task limit of app \"\(app)\": \(error)")
        }
    }

    /// The core's limits as the driver writes them.
    static func kernelLimits(_ limits: GroupMemoryLimits) -> MemoryLimits {
        MemoryLimits(max: limits.max.map { UInt64(max(0, $0)) }, high: limits.high.map { UInt64(max(0, $0)) })
    }

    nonisolated(nonsending) func setOOMScore(_ app: String, score: Int) async {
        let pids = await pids(of: app)
        guard !pids.isEmpty else { return }
        do {
            try launcher.setOOMScore(score, for: pids)
        } catch {
            warnOnce(app, cause: "oom_score_adj", "Could not set oom_score_adj \(score) for app \"\(app)\": \(error)")
        }
    }

    // MARK: Reading

    /// The processes of the app: its group's, or its main process without a group.
    nonisolated(nonsending) func pids(of app: String) async -> [Int32] {
        if let driver, let group = table.groups[app] {
            return (try? await driver.processes(in: group)) ?? []
        }
        return table.running[app].map { [$0.pid] } ?? []
    }

    /// The CPU time the app's group has used; nil without a group or where the host cannot tell.
    nonisolated(nonsending) func cpuUsage(of app: String) async -> Duration? {
        guard let driver, let group = table.groups[app] else { return nil }
        do {
            return try await driver.cpuUsage(of: group)
        } catch {
            warnOnce(app, cause: "cpu usage", "Could not read the CPU time of app \"\(app)\": \(error)")
            return nil
        }
    }

    /// How long the app's processes have waited on memory or for a CPU in total (`CgroupDriver.stall`);
    /// nil where the host does not count it per group or the group is gone.
    nonisolated(nonsending) func stall(of app: String) async -> Duration? {
        guard let driver, let group = table.groups[app] else { return nil }
        do {
            return try await driver.stall(of: group)
        } catch {
            logger.debug("Could not read the stall of app \"\(app)\": \(error)")
            return nil
        }
    }

    /// What the watchdog finds: processes running and not frozen → foreground; frozen or
    /// gone → background; the scan failing → error.
    nonisolated(nonsending) func scan(_ app: String) async -> ScanOutcome {
        guard let driver, let group = table.groups[app] else {
            guard let pid = table.running[app]?.pid else { return .background }
            return launcher.exists(pid) ? .foreground : .background
        }
        do {
            let pids = try await driver.processes(in: group)
            if pids.isEmpty { return .background }
            return try await driver.isFrozen(group) ? .background : .foreground
        } catch {
            return .error
        }
    }

    /// The app whose process `peer` is: the app whose group holds it, or whose main process it is.
    func app(of peer: PeerCredentials) -> String? {
        if let app = ProcessMembership.group(of: peer.pid, among: table.groups) { return app }
        return table.running.first { $0.value.pid == peer.pid }?.key
    }

    /// The processes the app list shows without reading them: none for an app not running, the
    /// kept list of a suspended one; nil when they must be read (`listedPids(of:)`).
    func knownPids(of snapshot: AppSnapshot) -> [Int32]? {
        if snapshot.state == .notRunning { return [] }
        guard snapshot.state == .suspended, !dryRun, driver != nil,
            let kept = table.frozenProcessLists[snapshot.name], kept.launch == snapshot.launch
        else { return nil }
        return kept.pids
    }

    /// The processes the app list shows, read and sorted (callers first try `knownPids(of:)`). A
    /// suspended app's group is frozen and its processes cannot fork, so its list is kept
    /// (`ProcessTable.frozenProcessLists`) for `knownPids(of:)`, which spares a dashboard's every
    /// poll a read of each group's `cgroup.procs`.
    nonisolated(nonsending) func listedPids(of snapshot: AppSnapshot) async -> [Int32] {
        let name = snapshot.name
        let frozen = snapshot.state == .suspended && !dryRun && driver != nil
        let pids = await pids(of: name).sorted()
        if frozen, table.running[name]?.launch == snapshot.launch {
            table.frozenProcessLists[name] = (snapshot.launch, pids)
        }
        return pids
    }

    /// The CPU time of a running app that is not suspended, for the app list; nil for the others.
    nonisolated(nonsending) func listedCPUTime(of snapshot: AppSnapshot) async -> Duration? {
        guard snapshot.state != .notRunning, snapshot.state != .suspended else { return nil }
        return await cpuUsage(of: snapshot.name)
    }

    /// Logs a warning about `app` the first time `cause` brings it, then only a count of the
    /// repeats at most once a minute (`RepeatedWarningLimiter`).
    func warnOnce(_ app: String, cause: String, _ message: String) {
        switch warnings.admit(subject: app, cause: cause, at: clock.elapsed()) {
        case .first: logger.warning("\(message)")
        case .repeated(let times): logger.warning("\(message) (repeated \(times) times)")
        case .suppressed: break
        }
    }
}
