import WardenCore

/// The core's armed timers, as the daemon keeps them: one deadline queue, served by the alarm.
///
/// Re-arming or cancelling a timer does not touch the queue: the entry of a timer whose
/// sequence is no longer the armed one is skipped when it comes due.
struct DaemonTimers {
    /// The timers by deadline, in (deadline, arming) order.
    private var queue = DeadlineQueue<TimerID>()
    /// The sequence number of each armed timer's live entry in `queue`.
    private var armed: [TimerID: UInt64] = [:]

    /// Arms (or re-arms) `timer` at `deadline`.
    mutating func arm(_ timer: TimerID, deadline: Instant) {
        armed[timer] = queue.schedule(timer, at: deadline)
    }

    /// Cancels `timer`; its entry is skipped when it comes due.
    mutating func cancel(_ timer: TimerID) {
        armed[timer] = nil
    }

    /// Takes the first live timer due by `now` off the queue; nil when none is due.
    mutating func popFirstDue(through now: Instant) -> TimerID? {
        while let entry = queue.popDue(through: now) {
            guard armed[entry.element] == entry.sequence else { continue }
            armed[entry.element] = nil
            return entry.element
        }
        return nil
    }

    /// The earliest deadline of a live timer; nil when none is armed.
    var nextDeadline: Instant? {
        mutating get {
            // Entries of cancelled or re-armed timers at the head are dropped, so that the alarm
            // is not set for them.
            while let first = queue.first, armed[first.element] != first.sequence {
                _ = queue.pop()
            }
            return queue.nextDeadline
        }
    }

    /// Forgets every armed timer, for a daemon that stops.
    mutating func stop() {
        armed.removeAll()
        queue = DeadlineQueue()
    }
}
