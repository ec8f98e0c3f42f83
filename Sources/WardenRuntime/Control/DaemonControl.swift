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
/// its group is frozen). The daemon gives it as `WardenDaemon.control`.
public struct DaemonControl: WardenControl {
    /// The daemon whose loop answers.
    let daemon: WardenDaemon

    /// Applies an operator verb or app call now: the daemon's `perform`.
    public func perform(_ event: LifecycleEvent) async throws(LifecycleError) -> Reply? {
        try await daemon.perform(event)
    }

    public func identify(_ peer: PeerCredentials) async -> CallerIdentity {
        let options = daemon.options
        return await daemon.onLoop { daemon in
            daemon.processes.app(of: peer).map(CallerIdentity.app)
                ?? CallerIdentity.operatorIdentity(of: peer, socketPath: options.socketPath)
        }
            ?? CallerIdentity.operatorIdentity(of: peer, socketPath: options.socketPath)
    }

    public func apps() async throws(LifecycleError) -> [AppInfo] {
        let answer = await daemon.onLoop { daemon in
            let snapshots = daemon.lifecycle.snapshots(at: daemon.clock.now())
            // Only the processes not known already are read (a wait each); the list itself is
            // written in one synchronous pass.
            var pids = snapshots.map { daemon.processes.knownPids(of: $0) }
            // The CPU time of the apps that run code, the same few (a frozen app uses none).
            var cpuTimes: [Duration?] = Array(repeating: nil, count: snapshots.count)
            for index in snapshots.indices where pids[index] == nil {
                pids[index] = await daemon.processes.listedPids(of: snapshots[index])
                cpuTimes[index] = await daemon.processes.listedCPUTime(of: snapshots[index])
            }
            var infos: [AppInfo] = []
            infos.reserveCapacity(snapshots.count)
            for index in snapshots.indices {
                infos.append(
                    AppInfo(
                        snapshots[index], pids: pids[index] ?? [], cpuTime: cpuTimes[index],
                        clock: daemon.parts.clock))
            }
            return infos
        }
        guard let answer else { throw WardenDaemon.stoppingError }
        return answer
    }

    public func appInfo(named name: String) async throws(LifecycleError) -> AppInfo? {
        let answer = await daemon.onLoop { daemon -> AppInfo? in
            guard let snapshot = daemon.lifecycle.snapshot(of: name, at: daemon.clock.now()) else { return nil }
            if let pids = daemon.processes.knownPids(of: snapshot) {
                return AppInfo(snapshot, pids: pids, cpuTime: nil, clock: daemon.parts.clock)
            }
            return AppInfo(
                snapshot, pids: await daemon.processes.listedPids(of: snapshot),
                cpuTime: await daemon.processes.listedCPUTime(of: snapshot), clock: daemon.parts.clock)
        }
        guard let answer else { throw WardenDaemon.stoppingError }
        return answer
    }

    /// One app; nil when the policy has no such app or the daemon is stopping.
    public func app(named name: String) async -> AppInfo? {
        (try? await appInfo(named: name)) ?? nil
    }

    /// The journal's entries that `query` selects, read off the loop; throws `.unavailable` once
    /// the daemon is stopping, as every other read does, so that a client asks the daemon that
    /// takes over, whose journal holds this one's last records too.
    public func journal(_ query: JournalQuery) async throws -> [JournalEntry] {
        guard daemon.inbox.isOpen else { throw WardenDaemon.stoppingError }
        return try daemon.parts.journal.entries(query)
    }

    public func explain(app: String) async throws(LifecycleError) -> Explanation {
        let answer = await daemon.onLoop { daemon -> Result<Explanation, LifecycleError> in
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
                    outlook: daemon.lifecycle.outlook(of: app, at: daemon.clock.now()) ?? []))
        }
        guard let answer else { throw WardenDaemon.stoppingError }
        return try answer.get()
    }

    public func subscribe(app: String?) async throws(LifecycleError) -> AsyncStream<JournalEntry> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: JournalEntry.self, bufferingPolicy: .bufferingNewest(1024))
        let inbox = daemon.inbox
        let id = await daemon.onLoop { daemon -> UInt64? in
            guard daemon.phase.isRunning else { return nil }
            return daemon.journal.subscribers.add(app: app, continuation: continuation)
        }
        guard let id = id ?? nil else {
            continuation.finish()
            throw WardenDaemon.stoppingError
        }
        continuation.onTermination = { _ in
            inbox.post(.work { daemon in daemon.journal.subscribers.remove(id) })
        }
        return stream
    }

    public func reloadPolicy(restartChanged: Bool) async throws -> ControlReplies.PolicyReloaded {
        let options = daemon.options
        let newPolicy: Policy
        do {
            newPolicy = try PolicyLoader.load(path: options.policyPath)
        } catch {
            let refusal = WardenDaemonError(
                "The policy \"\(options.policyPath)\" was not reloaded; the running policy stays in force:\n"
                    + error.description)
            let problems = error.diagnostics.map(\.description).joined(separator: " ")
            _ = await daemon.onLoop { daemon in
                daemon.logger.warning("\(refusal.message.replacing("\n", with: " "))")
                daemon.record(
                    app: JournalEntry.systemApp,
                    .decision("Policy reload refused; the running policy stays in force: \(problems)"))
            }
            throw refusal
        }
        let running = await daemon.onLoop { daemon in daemon.policy }
        let warnings = PolicyWarnings.warnings(
            for: newPolicy, replacing: running, stateDirectory: options.stateDirectory)
        let reply = try await daemon.perform(.policyChanged(newPolicy, restartChanged: restartChanged))
        _ = await daemon.onLoop { daemon in daemon.recordPolicyInForce() }
        let message = "Reloaded the policy \"\(options.policyPath)\": \(newPolicy.apps.count) apps."
        for warning in warnings { daemon.parts.logger.warning("Policy \"\(options.policyPath)\": \(warning)") }
        guard case .policyChanged(let diff) = reply else {
            return ControlReplies.PolicyReloaded(message: message, warnings: warnings)
        }
        daemon.parts.logger.info("\(message) \(diff.sentences.joined(separator: " "))")
        var reloaded = ControlReplies.PolicyReloaded(message: message, diff: diff)
        reloaded.warnings = warnings
        return reloaded
    }

    public func device() async throws(LifecycleError) -> DeviceInfo {
        let info = await daemon.onLoop { daemon in
            DeviceInfo(
                lifecycle: daemon.lifecycle, measured: daemon.parts.memory.deviceMemory(),
                recentKills: daemon.history.recentKills.reversed())
        }
        guard let info else { throw WardenDaemon.stoppingError }
        return info
    }

    public func health() async -> Health {
        let options = daemon.options
        let layout = daemon.parts.driver?.layout.kind.rawValue ?? "none"
        return await daemon.onLoop { daemon in
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
    public var metricsSource: WardenMetrics? { daemon.metrics }
}
