import WardenCore
import WardenSimulator

/// The core's armed timers, as the daemon keeps them: one deadline queue and the one task that
/// sleeps until its earliest deadline.
///
/// Re-arming or cancelling a timer does not touch the queue: the entry of a timer whose
/// sequence is no longer the armed one is skipped when it comes due.
struct DaemonTimers {
    /// The timers by deadline, in (deadline, arming) order.
    private var queue = TimerQueue<TimerID>()
    /// The sequence number of each armed timer's live entry in `queue`.
    private var armed: [TimerID: UInt64] = [:]
    /// The one task that sleeps until the earliest deadline and fires the timers due.
    private(set) var server: (id: UInt64, task: Task<Void, Never>)?
    /// How many timer tasks were started; the newest one's number is its id.
    private var serversStarted: UInt64 = 0

    /// Arms (or re-arms) `timer` at `deadline`.
    mutating func arm(_ timer: TimerID, deadline: Instant) {
        armed[timer] = queue.schedule(timer, at: deadline)
    }

    /// Cancels `timer`; its entry is skipped when it comes due.
    mutating func cancel(_ timer: TimerID) {
        armed[timer] = nil
    }

    /// Takes every live timer due by `now` off the queue, in (deadline, arming) order.
    mutating func popDue(through now: Instant) -> [TimerID] {
        var due: [TimerID] = []
        while let entry = queue.popDue(through: now) {
            guard armed[entry.element] == entry.sequence else { continue }
            armed[entry.element] = nil
            due.append(entry.element)
        }
        return due
    }

    /// The earliest deadline in the queue (possibly of a cancelled timer); nil when empty.
    var nextDeadline: Instant? { queue.nextDeadline }

    /// Replaces the timer task by the one `make` builds with the new task's id.
    mutating func replaceServer(_ make: (UInt64) -> Task<Void, Never>) {
        server?.task.cancel()
        serversStarted &+= 1
        server = (serversStarted, make(serversStarted))
    }

    /// Forgets the timer task (it ended, finding the queue empty).
    mutating func serverEnded() {
        server = nil
    }

    /// Cancels the timer task and every armed timer, for a daemon that stops.
    mutating func stop() {
        server?.task.cancel()
        server = nil
        armed.removeAll()
    }
}
