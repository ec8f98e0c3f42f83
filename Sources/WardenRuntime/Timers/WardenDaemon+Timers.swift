import WardenCore

/// Carrying out the core's timers: arming them in one queue served by one task on the clock.
extension WardenDaemon {
    /// Arms (or re-arms) a timer: its deadline goes into the queue, and the timer task is made
    /// to wake by then.
    func arm(_ timer: TimerID, deadline: Instant) {
        timers.arm(timer, deadline: deadline)
        if let serving = wakes["timers"], serving <= deadline.sinceOrigin, timers.server != nil { return }
        startTimerServer(wakingAt: deadline)
    }

    /// Cancels a timer: its entry in the queue is skipped when it comes due.
    func cancel(_ timer: TimerID) {
        timers.cancel(timer)
    }

    /// Replaces the timer task by one that sleeps on the clock until `deadline`, fires the timers
    /// due, and sleeps again until the next deadline, for as long as the queue holds one.
    func startTimerServer(wakingAt deadline: Instant) {
        wakes["timers"] = deadline.sinceOrigin
        let clock = clock
        timers.replaceServer { id in
            Task { [weak self] in
                var wake = deadline
                while true {
                    try? await clock.sleep(untilElapsed: wake.sinceOrigin)
                    guard !Task.isCancelled, let self, let next = await self.fireDueTimers(server: id) else { return }
                    wake = next
                }
            }
        }
    }

    /// Queues `timerFired` for every live timer due by now, in (deadline, arming) order; returns
    /// when to wake next, or nil when the queue is empty or `server` is no longer the timer task.
    func fireDueTimers(server: UInt64) -> Instant? {
        guard timers.server?.id == server, !isStopped else { return nil }
        for timer in timers.popDue(through: now()) {
            submit(.timerFired(timer))
        }
        guard let next = timers.nextDeadline else {
            timers.serverEnded()
            wakes["timers"] = nil
            return nil
        }
        wakes["timers"] = next.sinceOrigin
        return next
    }
}
