import Foundation
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

/// What the control server asks of the daemon.
extension WardenDaemon: WardenControl {
    public func identify(_ peer: PeerCredentials) async -> CallerIdentity {
        if let app = ProcessMembership.group(of: peer.pid, among: processes.groups) {
            return .app(app)
        }
        for (app, entry) in processes.running where entry.pid == peer.pid {
            return .app(app)
        }
        if peer.uid == 0 || peer.uid == geteuid() {
            return .operator
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: options.socketPath)
        if let owner = attributes?[.groupOwnerAccountID] as? NSNumber, owner.uint32Value == peer.gid {
            return .operator
        }
        return .denied(
            "Process \(peer.pid) (user \(peer.uid)) is neither root, nor in the socket's group, nor one of the apps.")
    }

    public func perform(_ event: LifecycleEvent) async throws(LifecycleError) -> Reply? {
        try await enqueue(event).get()
    }

    public func apps() async -> [AppInfo] {
        await betweenEvents()
        var result: [AppInfo] = []
        for snapshot in lifecycle.snapshots(at: now()) {
            result.append(await info(snapshot))
        }
        return result
    }

    public func app(named name: String) async -> AppInfo? {
        await betweenEvents()
        guard let snapshot = lifecycle.snapshot(of: name, at: now()) else { return nil }
        return await info(snapshot)
    }

    private func info(_ snapshot: AppSnapshot) async -> AppInfo {
        AppInfo(
            name: snapshot.name, state: AppInfo.State(snapshot.state), status: AppInfo.Status(snapshot.status),
            pids: snapshot.state == .notRunning ? [] : await listedPids(of: snapshot),
            footprintBytes: snapshot.footprint, band: snapshot.band.map(AppInfo.Band.init),
            timeRemainingMillis: snapshot.taskTimeRemaining.map(\.milliseconds),
            nextWakeMillis: snapshot.nextFetchWake.map(wallMillis),
            openTasks: snapshot.openTasks.map { TaskInfo(id: $0.id, name: $0.name) },
            heldResources: snapshot.heldResources, forceQuit: snapshot.isForceQuit,
            hasPreservedState: snapshot.hasPreservedState)
    }

    /// The processes the app list shows, sorted. A suspended app's group is frozen and its
    /// processes cannot fork, so its list is read once and kept (`processes.frozenProcessLists`), which
    /// spares a dashboard's every poll a read of each group's `cgroup.procs`.
    private func listedPids(of snapshot: AppSnapshot) async -> [Int32] {
        let name = snapshot.name
        let frozen = snapshot.state == .suspended && !options.dryRun && driver != nil && !eventQueue.isHandling
        if frozen, let kept = processes.frozenProcessLists[name], kept.launch == snapshot.launch {
            return kept.pids
        }
        let pids = await pids(of: name).sorted()
        // Kept only if nothing happened to the app meanwhile (the read awaited the driver).
        if frozen, !eventQueue.isHandling, lifecycle.state(of: name) == .suspended,
            processes.running[name]?.launch == snapshot.launch
        {
            processes.frozenProcessLists[name] = (snapshot.launch, pids)
        }
        return pids
    }

    public func journal(_ query: JournalQuery) async throws -> [JournalEntry] {
        try journalStore.entries(query)
    }

    public func explain(app: String) async throws(LifecycleError) -> Explanation {
        await betweenEvents()
        guard let state = lifecycle.state(of: app) else {
            throw LifecycleError.unknownApp(app)
        }
        // The app's newest records, and the device's records (screen, policy, daemon) since the first of them.
        let own = (try? journalStore.entries(JournalQuery(app: app, limit: 2000, newest: true))) ?? []
        let system =
            own.first.flatMap { first in
                try? journalStore.entries(
                    JournalQuery(app: JournalEntry.systemApp, sinceID: first.id - 1, limit: 500, newest: true))
            } ?? []
        let entries = (own + system).sorted { $0.id < $1.id }
        return Explanation(
            app: app, state: state, entries: entries, outlook: lifecycle.outlook(of: app, at: now()) ?? [])
    }

    public func subscribe(app: String?) async -> AsyncStream<JournalEntry> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: JournalEntry.self, bufferingPolicy: .bufferingNewest(1024))
        guard !isStopped else {
            continuation.finish()
            return stream
        }
        let id = subscribers.add(app: app, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    func unsubscribe(_ id: UInt64) {
        subscribers.remove(id)
    }

    public func reloadPolicy(restartChanged: Bool) async throws -> ControlReplies.PolicyReloaded {
        let newPolicy: Policy
        do {
            newPolicy = try PolicyLoader.load(path: options.policyPath)
        } catch {
            throw WardenDaemonError(
                "The policy \"\(options.policyPath)\" was not reloaded; the running policy stays in force:\n"
                    + error.description)
        }
        let reply = try await enqueue(.policyChanged(newPolicy, restartChanged: restartChanged)).get()
        let message = "Reloaded the policy \"\(options.policyPath)\": \(newPolicy.apps.count) apps."
        guard case .policyChanged(let diff) = reply else { return ControlReplies.PolicyReloaded(message: message) }
        logger.info("\(message) \(diff.sentences.joined(separator: " "))")
        return ControlReplies.PolicyReloaded(message: message, diff: diff)
    }

    public func device() async -> DeviceInfo {
        let level = lifecycle.memoryLevel.rawValue
        let kills = recentKills.reversed().map { $0 }
        guard let sample = memory.deviceMemory() else {
            return DeviceInfo(pressure: level, recentKills: kills)
        }
        let settings = policy.memory
        let thresholds = DeviceInfo.Thresholds(
            warningEnterBytes: settings.warningEnter.bytes(ofTotal: sample.total),
            warningExitBytes: settings.warningExit.bytes(ofTotal: sample.total),
            criticalEnterBytes: settings.criticalEnter.bytes(ofTotal: sample.total),
            criticalExitBytes: settings.criticalExit.bytes(ofTotal: sample.total))
        return DeviceInfo(
            pressure: level, availableBytes: sample.available, totalBytes: sample.total, thresholds: thresholds,
            recentKills: kills)
    }

    public func health() async -> Health {
        Health(
            ok: !isStopped, version: WardenVersion.current, policy: options.policyPath, apps: policy.apps.count,
            pressure: lifecycle.memoryLevel.rawValue, cgroupLayout: layout?.kind.rawValue ?? "none",
            dryRun: options.dryRun)
    }
}
