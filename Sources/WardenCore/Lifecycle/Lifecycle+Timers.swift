/// The core's timers firing: each armed timer, when due, is handed to the rule that armed it.
extension Lifecycle {
    /// A timer fired: ignored unless it is armed and due; otherwise handed to its rule.
    mutating func timerFired(_ timer: TimerID, at now: Instant, _ out: inout [LifecycleAction]) {
        guard let index = indexByName[timer.app] else { return }
        guard let deadline = records[index].timers[timer.kind], deadline <= now else { return }
        records[index].timers[timer.kind] = nil
        switch timer.kind {
        case .backgroundGrace:
            suspendIfIdle(index, because: "background grace ended", at: now, &out)
        case .taskExpirationWarning:
            expirationWarningFired(index, at: now, &out)
        case .taskBudget:
            taskBudgetFired(index, at: now, &out)
        case .fetchWindow:
            fetchWindowFired(index, at: now, &out)
        case .pushWindow:
            pushWindowFired(index, at: now, &out)
        case .accessoryWindow:
            accessoryWindowFired(index, at: now, &out)
        case .fetchWake:
            fetchWakeFired(index, at: now, &out)
        case .pushSlot:
            pushSlotFired(index, at: now, &out)
        case .launchTimeout:
            guard records[index].awaitingReady, records[index].isRunning else { return }
            decide(index, "Not ready within the launch timeout.", at: now, &out)
            terminate(index, reason: .launchTimeout, because: "not ready in time", at: now, &out)
        case .terminationGrace:
            guard let reason = records[index].terminating else { return }
            records[index].terminating = nil
            out.append(.kill(app: records[index].name, reason: reason))
            setState(index, .notRunning, because: "termination grace ended", at: now, &out)
            reopenIfAsked(index, at: now, &out)
        case .watchdog:
            watchdogFired(index, at: now, &out)
        case .cpuBudget:
            cpuBudgetFired(index, at: now, &out)
        case .activityLimit:
            activityLimitFired(index, at: now, &out)
        }
    }
}
