import FoundationEssentials
import Logging
public import WardenAPI
import WardenCgroup
public import WardenCore
import WardenPolicy

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the control server asks of the daemon: each read is a job on the daemon's loop, answered
/// between events, so that it says what is, never what is about to be (an app suspended before
/// its group is frozen).
extension WardenDaemon: WardenControl {
    public nonisolated func identify(_ peer: PeerCredentials) async -> CallerIdentity {
        let options = options
        return await onLoop { daemon in daemon.identity(of: peer) }
            ?? Self.operatorIdentity(of: peer, socketPath: options.socketPath)
    }

    /// An app's process is that app; root, this daemon's user and the socket's group are operators.
    private func identity(of peer: PeerCredentials) -> CallerIdentity {
        if let app = ProcessMembership.group(of: peer.pid, among: processes.table.groups) {
            return .app(app)
        }
        for (app, entry) in processes.table.running where entry.pid == peer.pid {
            return .app(app)
        }
        return Self.operatorIdentity(of: peer, socketPath: options.socketPath)
    }

    /// Root, this daemon's user and the members of the socket's group (its primary group, or
    /// one of its supplementary groups) are operators.
    static func operatorIdentity(of peer: PeerCredentials, socketPath: String, procRoot: String = "/proc")
        -> CallerIdentity
    {
        if peer.uid == 0 || peer.uid == geteuid() {
            return .operator
        }
        var socketStatus = stat()
        if stat(socketPath, &socketStatus) == 0, case let owner = socketStatus.st_gid,
            owner == peer.gid || ProcessGroups.supplementary(of: peer.pid, procRoot: procRoot).contains(owner)
        {
            return .operator
        }
        return .denied(
            "Process \(peer.pid) (user \(peer.uid)) is neither root, nor in the socket's group, nor one of the apps.")
    }

    public nonisolated func apps() async throws(LifecycleError) -> [AppInfo] {
        let answer = await onLoop { daemon in
            let snapshots = daemon.lifecycle.snapshots(at: daemon.now())
            // Only the processes not known already are read (a wait each); the list itself is
            // written in one synchronous pass.
            var pids = snapshots.map { daemon.knownPids(of: $0) }
            // The CPU time of the apps that run code, the same few (a frozen app uses none).
            var cpuTimes: [Duration?] = Array(repeating: nil, count: snapshots.count)
            for index in snapshots.indices where pids[index] == nil {
                pids[index] = await daemon.listedPids(of: snapshots[index])
                cpuTimes[index] = await daemon.listedCPUTime(of: snapshots[index])
            }
            return daemon.infos(snapshots, pids: pids, cpuTimes: cpuTimes)
        }
        guard let answer else { throw Self.stoppingError }
        return answer
    }

    public nonisolated func appInfo(named name: String) async throws(LifecycleError) -> AppInfo? {
        let answer = await onLoop { daemon -> AppInfo? in
            guard let snapshot = daemon.lifecycle.snapshot(of: name, at: daemon.now()) else { return nil }
            if let pids = daemon.knownPids(of: snapshot) { return daemon.info(snapshot, pids: pids, cpuTime: nil) }
            return daemon.info(
                snapshot, pids: await daemon.listedPids(of: snapshot),
                cpuTime: await daemon.listedCPUTime(of: snapshot))
        }
        guard let answer else { throw Self.stoppingError }
        return answer
    }

    /// One app; nil when the policy has no such app or the daemon is stopping.
    public nonisolated func app(named name: String) async -> AppInfo? {
        (try? await appInfo(named: name)) ?? nil
    }

    /// The app list from `snapshots` and, in the same order, their processes.
    private func infos(_ snapshots: [AppSnapshot], pids: [[Int32]?], cpuTimes: [Duration?]) -> [AppInfo] {
        var result: [AppInfo] = []
        result.reserveCapacity(snapshots.count)
        for index in snapshots.indices {
            result.append(info(snapshots[index], pids: pids[index] ?? [], cpuTime: cpuTimes[index]))
        }
        return result
    }

    /// The CPU time of a running app that is not suspended; nil for the others.
    private func listedCPUTime(of snapshot: AppSnapshot) async -> Duration? {
        guard snapshot.state != .notRunning, snapshot.state != .suspended else { return nil }
        return await processes.cpuUsage(of: snapshot.name)
    }

    private func info(_ snapshot: AppSnapshot, pids: [Int32], cpuTime: Duration?) -> AppInfo {
        AppInfo(
            name: snapshot.name, state: AppInfo.State(snapshot.state), status: AppInfo.Status(snapshot.status),
            pids: pids,
            footprintBytes: snapshot.footprint, swappedBytes: snapshot.swappedBytes,
            reclaimableBytes: snapshot.reclaimableBytes,
            band: snapshot.band.map(AppInfo.Band.init),
            timeRemainingMillis: snapshot.taskTimeRemaining.map(\.milliseconds),
            nextWakeMillis: snapshot.nextFetchWake.map(wallMillis),
            openTasks: snapshot.openTasks.map { TaskInfo(id: $0.id, name: $0.name) },
            activities: snapshot.activities.map { ActivityInfo(id: $0.id, mode: $0.mode.rawValue) },
            windows: snapshot.windows.map {
                WindowInfo(
                    kind: $0.kind.rawValue, endMillis: $0.end.map(wallMillis), action: $0.action, device: $0.device)
            },
            heldResources: snapshot.heldResources, forceQuit: snapshot.isForceQuit,
            hasPreservedState: snapshot.hasPreservedState, cpuClass: snapshot.cpuClass?.rawValue,
            cpuTimeMillis: cpuTime?.milliseconds, backgroundCPUPercent: snapshot.backgroundCPUPercent,
            coldLaunches: snapshot.coldLaunches)
    }

    /// The processes the app list shows, read and sorted (callers first try `knownPids(of:)`). A
    /// suspended app's group is frozen and its processes cannot fork, so its list is kept
    /// (`processes.table.frozenProcessLists`) for `knownPids(of:)`, which spares a dashboard's every
    /// poll a read of each group's `cgroup.procs`.
    private func listedPids(of snapshot: AppSnapshot) async -> [Int32] {
        let name = snapshot.name
        let frozen = snapshot.state == .suspended && !options.dryRun && driver != nil
        let pids = await processes.pids(of: name).sorted()
        if frozen, processes.table.running[name]?.launch == snapshot.launch {
            processes.table.frozenProcessLists[name] = (snapshot.launch, pids)
        }
        return pids
    }

    /// The processes the app list shows without reading them: none for an app not running, the
    /// kept list of a suspended one; nil when they must be read (`listedPids(of:)`).
    private func knownPids(of snapshot: AppSnapshot) -> [Int32]? {
        if snapshot.state == .notRunning { return [] }
        guard snapshot.state == .suspended, !options.dryRun, driver != nil,
            let kept = processes.table.frozenProcessLists[snapshot.name], kept.launch == snapshot.launch
        else { return nil }
        return kept.pids
    }

    /// The journal's entries that `query` selects, read off the loop; throws `.unavailable` once
    /// the daemon is stopping, as every other read does, so that a client asks the daemon that
    /// takes over, whose journal holds this one's last records too.
    public nonisolated func journal(_ query: JournalQuery) async throws -> [JournalEntry] {
        guard inbox.isOpen else { throw Self.stoppingError }
        return try parts.journal.entries(query)
    }

    public nonisolated func explain(app: String) async throws(LifecycleError) -> Explanation {
        let answer = await onLoop { daemon -> Result<Explanation, LifecycleError> in
            guard let state = daemon.lifecycle.state(of: app) else { return .failure(LifecycleError.unknownApp(app)) }
            let store = daemon.parts.journal
            // The app's newest records, and the device's records (screen, policy, daemon) since the first of them.
            let own = (try? store.entries(JournalQuery(app: app, limit: 2000, newest: true))) ?? []
            let system =
                own.first.flatMap { first in
                    try? store.entries(
                        JournalQuery(app: JournalEntry.systemApp, sinceID: first.id - 1, limit: 500, newest: true))
                } ?? []
            let entries = (own + system).sorted { $0.id < $1.id }
            return .success(
                Explanation(
                    app: app, state: state, entries: entries,
                    outlook: daemon.lifecycle.outlook(of: app, at: daemon.now()) ?? []))
        }
        guard let answer else { throw Self.stoppingError }
        return try answer.get()
    }

    public nonisolated func subscribe(app: String?) async throws(LifecycleError) -> AsyncStream<JournalEntry> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: JournalEntry.self, bufferingPolicy: .bufferingNewest(1024))
        let inbox = inbox
        let id = await onLoop { daemon -> UInt64? in
            guard daemon.phase.isRunning else { return nil }
            return daemon.journal.subscribers.add(app: app, continuation: continuation)
        }
        guard let id = id ?? nil else {
            continuation.finish()
            throw Self.stoppingError
        }
        continuation.onTermination = { _ in
            inbox.post(.work { daemon in daemon.journal.subscribers.remove(id) })
        }
        return stream
    }

    public nonisolated func reloadPolicy(restartChanged: Bool) async throws -> ControlReplies.PolicyReloaded {
        let newPolicy: Policy
        do {
            newPolicy = try PolicyLoader.load(path: options.policyPath)
        } catch {
            let refusal = WardenDaemonError(
                "The policy \"\(options.policyPath)\" was not reloaded; the running policy stays in force:\n"
                    + error.description)
            let problems = error.diagnostics.map(\.description).joined(separator: " ")
            _ = await onLoop { daemon in
                daemon.logger.warning("\(refusal.message.replacing("\n", with: " "))")
                daemon.record(
                    app: JournalEntry.systemApp,
                    .decision("Policy reload refused; the running policy stays in force: \(problems)"))
            }
            throw refusal
        }
        let running = await onLoop { daemon in daemon.policy }
        let warnings = PolicyWarnings.warnings(
            for: newPolicy, replacing: running, stateDirectory: options.stateDirectory)
        let reply = try await perform(.policyChanged(newPolicy, restartChanged: restartChanged))
        _ = await onLoop { daemon in daemon.recordPolicyInForce() }
        let message = "Reloaded the policy \"\(options.policyPath)\": \(newPolicy.apps.count) apps."
        for warning in warnings { parts.logger.warning("Policy \"\(options.policyPath)\": \(warning)") }
        guard case .policyChanged(let diff) = reply else {
            return ControlReplies.PolicyReloaded(message: message, warnings: warnings)
        }
        parts.logger.info("\(message) \(diff.sentences.joined(separator: " "))")
        var reloaded = ControlReplies.PolicyReloaded(message: message, diff: diff)
        reloaded.warnings = warnings
        return reloaded
    }

    public nonisolated func device() async throws(LifecycleError) -> DeviceInfo {
        guard let info = await onLoop({ daemon in daemon.deviceInfo() }) else { throw Self.stoppingError }
        return info
    }

    private func deviceInfo() -> DeviceInfo {
        let level = lifecycle.memoryLevel.rawValue
        let kills = Array(history.recentKills.reversed())
        guard let sample = parts.memory.deviceMemory() else {
            return DeviceInfo(pressure: level, recentKills: kills, coldLaunches: lifecycle.coldLaunchCount)
        }
        let settings = policy.memory
        let thresholds = DeviceInfo.Thresholds(
            warningEnterBytes: settings.warningEnter.bytes(ofTotal: sample.total),
            warningExitBytes: settings.warningExit.bytes(ofTotal: sample.total),
            criticalEnterBytes: settings.criticalEnter.bytes(ofTotal: sample.total),
            criticalExitBytes: settings.criticalExit.bytes(ofTotal: sample.total))
        return DeviceInfo(
            pressure: level, availableBytes: sample.available, totalBytes: sample.total, thresholds: thresholds,
            recentKills: kills, coldLaunches: lifecycle.coldLaunchCount)
    }

    public nonisolated func health() async -> Health {
        let options = options
        let layout = parts.driver?.layout.kind.rawValue ?? "none"
        return await onLoop { daemon in
            Health(
                ok: daemon.phase.isRunning, version: WardenVersion.current, policy: options.policyPath,
                apps: daemon.policy.apps.count, pressure: daemon.lifecycle.memoryLevel.rawValue,
                cgroupLayout: layout, dryRun: options.dryRun, logDirectory: options.logDirectory)
        }
            ?? Health(
                ok: false, version: WardenVersion.current, policy: options.policyPath, apps: 0,
                pressure: PressureLevel.normal.rawValue, cgroupLayout: layout, dryRun: options.dryRun)
    }

    /// The metrics the control server counts its requests in.
    public nonisolated var metricsSource: WardenMetrics? { metrics }
}
