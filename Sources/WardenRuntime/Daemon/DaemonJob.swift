import WardenCore

/// One input of the daemon's loop (`DaemonInbox`).
enum DaemonJob: Sendable {
    /// An event for the core, and whoever waits for its answer.
    case event(LifecycleEvent, answer: CheckedContinuation<Result<Reply?, LifecycleError>, Never>?)
    /// Work on the daemon's state between events: a read (status, explain), a subscription, a
    /// policy reload. The closure answers its caller itself.
    case work(@Sendable (isolated WardenDaemon) async -> Void)
    /// The alarm went off: timers and the memory watch are due.
    case wake
    /// The kernel signalled memory pressure or an OOM kill.
    case memory(MemorySignal)
    /// A launched process began to run, or a watched process ended.
    case process(ProcessReport)
    /// Stop: what `stop()` and a graceful shutdown ask; `done` is resumed once stopped.
    case stop(done: CheckedContinuation<Void, Never>?)
}
