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
        if let app = ProcessMembership.group(of: peer.pid, among: groups) {
            return .app(app)
        }
        for (app, entry) in running where entry.pid == peer.pid {
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
        var result: [AppInfo] = []
        for snapshot in lifecycle.snapshots(at: now()) {
            result.append(await info(snapshot))
        }
        return result
    }

    public func app(named name: String) async -> AppInfo? {
        guard let snapshot = lifecycle.snapshot(of: name, at: now()) else { return nil }
        return await info(snapshot)
    }

    private func info(_ snapshot: AppSnapshot) async -> AppInfo {
        AppInfo(
            name: snapshot.name, state: snapshot.state.rawValue, status: snapshot.status.description,
            pids: snapshot.state == .notRunning ? [] : await listedPids(of: snapshot),
            footprintBytes: snapshot.footprint, band: snapshot.band?.description,
            timeRemainingMillis: snapshot.taskTimeRemaining.map(WardenClock.milliseconds),
            nextWakeMillis: snapshot.nextFetchWake.map(wallMillis),
            openTasks: snapshot.openTasks.map { TaskInfo(id: $0.id, name: $0.name) },
            heldResources: snapshot.heldResources, forceQuit: snapshot.isForceQuit,
            hasPreservedState: snapshot.hasPreservedState)
    }

    /// The processes the app list shows, sorted. A suspended app's group is frozen and its
    /// processes cannot fork, so its list is read once and kept (`frozenProcessLists`), which
    /// spares a dashboard's every poll a read of each group's `cgroup.procs`.
    private func listedPids(of snapshot: AppSnapshot) async -> [Int32] {
        let name = snapshot.name
        let frozen = snapshot.state == .suspended && !options.dryRun && driver != nil && !isHandling
        if frozen, let kept = frozenProcessLists[name], kept.launch == snapshot.launch {
            return kept.pids
        }
        let pids = await pids(of: name).sorted()
        // Kept only if nothing happened to the app meanwhile (the read awaited the driver).
        if frozen, !isHandling, lifecycle.state(of: name) == .suspended, running[name]?.launch == snapshot.launch {
            frozenProcessLists[name] = (snapshot.launch, pids)
        }
        return pids
    }

    public func journal(_ query: JournalQuery) async throws -> [JournalEntry] {
        try journalStore.entries(query)
    }

    public func explain(app: String) async throws(LifecycleError) -> Explanation {
        guard let state = lifecycle.state(of: app) else {
            throw LifecycleError(.notFound, "The policy has no app \"\(app)\".")
        }
        let entries = (try? journalStore.entries(JournalQuery(app: app, limit: 100_000))) ?? []
        var sentences: [String] = []
        for entry in entries {
            switch (entry.kind, entry.name) {
            case ("state", _):
                let from = entry.properties["from"] ?? "?"
                let because = entry.properties["because"] ?? "no reason recorded"
                sentences.append("Went from \(from) to \(entry.name): \(because).")
            case ("decision", _):
                if let text = entry.properties["text"] { sentences.append(text) }
            case ("analytics", "$AppTerminated"):
                sentences.append("Terminated: \(entry.properties["reason"] ?? "reason unknown").")
            default:
                continue
            }
        }
        return Explanation(app: app, state: state.rawValue, sentences: Array(sentences.suffix(20)))
    }

    public func subscribe(app: String?) async -> AsyncStream<JournalEntry> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: JournalEntry.self, bufferingPolicy: .bufferingNewest(1024))
        guard !isStopped else {
            continuation.finish()
            return stream
        }
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers[id] = (app, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    func unsubscribe(_ id: UInt64) {
        subscribers[id] = nil
    }

    public func reloadPolicy() async throws -> String {
        let newPolicy: Policy
        do {
            newPolicy = try PolicyLoader.load(path: options.policyPath)
        } catch {
            throw WardenDaemonError(
                "The policy \"\(options.policyPath)\" was not reloaded; the running policy stays in force:\n"
                    + error.description)
        }
        _ = try await enqueue(.policyChanged(newPolicy)).get()
        return "Reloaded the policy \"\(options.policyPath)\": \(newPolicy.apps.count) apps."
    }

    public func health() async -> Health {
        let pressure = lifecycle.pressureLevel.rawValue
        return Health(
            ok: !isStopped, version: "0.1.0", policy: options.policyPath, apps: policy.apps.count,
            pressure: pressure, cgroupLayout: layout?.kind.rawValue ?? "none", dryRun: options.dryRun)
    }
}
