import FoundationEssentials
import Logging
import WardenAPI
import WardenCgroup
import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A rehearsal of the kill for memory at start, before the daemon's memory is locked.
///
/// The lock (`DaemonMemory.lockTouchedPages`) keeps the code that has run by then: code that
/// first runs at the first real kill is read from flash then, while the device is short of
/// memory and its page cache is being thrown out. earlyoom rehearses its kill at start for the
/// same reason. The rehearsal kills nothing of the apps' and journals nothing.
public struct KillRehearsal {
    /// The group the rehearsal kills: a name no app can have (`#` is not allowed in app names).
    public static let groupName = "#kill-rehearsal"

    /// The policy in force, whose memory settings the scratch model takes.
    let policy: Policy
    /// The apps' groups; nil (or a dry run) rehearses only the choice.
    let driver: (any CgroupDriver)?
    let dryRun: Bool
    let releasesMemoryOnKill: Bool
    let logger: Logger

    /// Runs what a kill for memory runs: the core's choice of a victim with its report (on a
    /// scratch model of two apps), the log line and journal record made of them, and the
    /// driver's kill with `process_mrelease` of a process started for it in a group of its own.
    func run() async {
        let clock = ContinuousClock()
        let started = clock.now
        let decided = rehearseDecision()
        let killed = await rehearseGroupKill()
        let took = started.duration(to: clock.now)
        let steps = [decided ? "the choice of a victim" : nil, killed ? "the kill of a process of its own" : nil]
        logger.info(
            "Rehearsed a kill for memory before locking the daemon's memory: \(steps.compactMap { $0 }.joined(separator: " and ")), in \(took.milliseconds) ms."
        )
    }

    /// The core's side, on a scratch model: two apps opened, then memory gone. Returns whether
    /// the core chose a victim.
    private func rehearseDecision() -> Bool {
        var scratchPolicy = policy
        scratchPolicy.apps = [AppPolicy(name: "first", command: "/"), AppPolicy(name: "second", command: "/")]
        scratchPolicy.foregroundSlots = 2
        scratchPolicy.memory.killForeground = true
        var scratch = Lifecycle(policy: scratchPolicy)
        let start = Instant(sinceOrigin: .zero)
        var actions: [LifecycleAction] = []
        do {
            for app in ["first", "second"] {
                for action in try scratch.handle(.open(app: app), at: start) {
                    guard case .spawn(let app, let launch, _, _) = action else { continue }
                    _ = try scratch.handle(.launched(app: app, launch: launch), at: start)
                }
            }
            _ = try scratch.handle(.footprint(app: "first", bytes: 64 << 20), at: start)
            actions = try scratch.handle(
                .memorySample(
                    available: 0, total: 1 << 30, swap: SwapFigures(free: 0, total: 1 << 30, swappable: 1 << 28)),
                at: start + .seconds(1))
        } catch {
            logger.debug("The rehearsal of a kill decision stopped: \(error)")
        }
        var rehearsed = 0
        for case .journal(let record) in actions {
            if let line = MemoryDecisionLog.line(record) { rehearsed += line.utf8.count }
            rehearsed += AppEvent(record.kind).properties.count
        }
        logger.debug("Rehearsed a kill decision: \(actions.count) actions, \(rehearsed) bytes of records.")
        return actions.contains { if case .kill = $0 { true } else { false } }
    }

    /// The driver's side: a process of the rehearsal's own, in a group of its own, killed as a
    /// victim for memory is, then reaped and its group removed; whether the kill went through.
    private func rehearseGroupKill() async -> Bool {
        guard let driver, !dryRun else { return false }
        let group: AppGroup
        let pid: Int32
        do {
            group = try await driver.createGroup(named: Self.groupName)
            pid = try ShellSpawn.start("exec sleep 60", descriptors: ShellSpawn.Descriptors(inputFromNull: true))
        } catch {
            logger.debug("The rehearsal of a kill could not start: \(error)")
            try? await driver.remove(driver.group(named: Self.groupName))
            return false
        }
        var killed = true
        do {
            try await driver.attach(pid, to: group)
            _ = try await driver.memoryStatistics(of: group)
            try await driver.kill(group, releasingMemory: releasesMemoryOnKill, waitingAtMost: .seconds(1))
        } catch {
            logger.debug("The rehearsal of a kill did not go through: \(error)")
            killed = false
            _ = Glibc.kill(pid, SIGKILL)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        do {
            try await driver.remove(group)
        } catch {
            logger.debug("Could not remove the rehearsal's group: \(error)")
        }
        return killed
    }
}
