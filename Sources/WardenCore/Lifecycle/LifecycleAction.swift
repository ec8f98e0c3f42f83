/// Every effect the core decides on. The runtime carries them out in order; the simulator
/// records them. The core never performs an effect itself.
public enum LifecycleAction: Sendable, Equatable {
    /// Start the app's process (launch number `launch`) in its own group.
    /// `restore` asks it to restore from its preserved state (`APPWARDEN_RESTORE=1`).
    case spawn(app: String, launch: Int, reason: LaunchReason, restore: Bool)
    /// Freeze the app's group. `guardPaths` are paths of shared resources the app must not
    /// hold: if one of its processes has one open or locked, the runtime does not freeze and
    /// reports `LifecycleEvent.heldAtSuspension`.
    case freeze(app: String, guardPaths: [ResourcePath])
    /// Push the frozen app's memory out to swap (cgroup v2 `memory.reclaim`, else
    /// `process_madvise(MADV_PAGEOUT)`), off the runtime's way: a thaw never waits for it. The
    /// runtime answers with `LifecycleEvent.compressed`.
    case compress(app: String, launch: Int)
    /// Measure how long the processes of launch `launch` of the app have waited on memory or for
    /// a CPU (PSI `some` totals of its group's `memory.pressure` and `cpu.pressure`), for a fetch
    /// or push window to count only the time the app could run. The runtime answers with
    /// `LifecycleEvent.stallMeasured`.
    case measureStall(app: String, launch: Int)
    /// Give the app's group what its CPU class gets (rule 13): sent before the `spawn` of a
    /// launch, whenever the class changes, and when a reload changes what the class gets. The
    /// runtime applies it to the group it creates for the next spawn, or to the running group.
    case setCPU(app: String, cpuClass: CPUClass, control: CPUControl)
    /// Measure the CPU time the processes of launch `launch` of the app have used since it began
    /// (`cpu.stat` `usage_usec` of its group). The runtime answers with `LifecycleEvent.cpuMeasured`.
    case measureCPU(app: String, launch: Int)
    /// Thaw the app's group.
    case thaw(app: String)
    /// Send SIGTERM to the app's processes; the core arms the termination grace and kills after it.
    case terminate(app: String, reason: TerminationReason)
    /// SIGKILL the whole group at once (thawing it afterwards on cgroup v1).
    case kill(app: String, reason: TerminationReason)
    /// Set the memory limits of the app's group (`memory.max`, `memory.high`): sent before the
    /// `spawn` of a launch whose app has limits, and whenever the limit in force changes
    /// (foreground and background limits, a policy reload). The runtime applies them to the
    /// group it creates for the next spawn, or to the running group at once.
    case setMemoryLimits(app: String, limits: GroupMemoryLimits)
    /// Set `oom_score_adj` of every process of the app (rule 10).
    case setOOMScore(app: String, band: KillBand, score: Int)
    /// Deliver a message on the app's own event stream.
    case deliver(app: String, message: AppMessage)
    /// Arm (or re-arm) a timer; the runtime sends `timerFired` at or after `deadline`.
    case armTimer(TimerID, deadline: Instant)
    /// Cancel a timer. A cancelled timer that still fires is ignored by the core.
    case cancelTimer(TimerID)
    /// Publish a status change to the status notifier's observers (§1.5).
    case publishStatus(app: String, status: AppStatus)
    /// Ask the runtime to scan the app's processes; it answers with `scanResult`.
    case scan(app: String)
    /// Append a record to the app's durable journal.
    case journal(JournalRecord)
    /// Delete the app's preserved state (its restoration directory).
    case deleteRestorationState(app: String)
    /// Answer the call that produced this batch of actions.
    case reply(Reply)
    /// Run an operator hook (`[hooks]`) in the background; it never delays the actions after it.
    case runHook(HookInvocation)
}
