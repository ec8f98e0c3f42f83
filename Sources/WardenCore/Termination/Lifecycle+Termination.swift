/// Terminations (rule 11), process exits and crashes, and a resource path held at suspension.
extension Lifecycle {
    /// Terminates a running app: publishes `terminating`, journals `$AppTerminated`, cancels
    /// its timers, releases its resources and ends its windows and tasks. Graceful reasons send
    /// SIGTERM and wait for the exit (or the termination grace); every other reason kills at once.
    /// `processGone`: the process already ended on its own, so no signal is sent.
    mutating func terminate(
        _ index: Int, reason: TerminationReason, because sentence: String, processGone: Bool = false,
        at now: Instant, _ out: inout [LifecycleAction]
    ) {
        let record = records[index]
        guard record.isRunning, record.terminating == nil else { return }
        publish(index, .terminating, &out)
        journal(index, .analytics(.appTerminated(reason: reason)), at: now, &out)
        for kind in Self.processTimers {
            cancel(index, kind, &out)
        }
        if let position = foreground.firstIndex(of: index) {
            foreground.remove(at: position)
        }
        if record.isInForeground {
            records[index].lastUsed = now
        }
        records[index].heldResources.removeAll()
        records[index].tasks.removeAll()
        records[index].fetchWindowOpen = false
        records[index].pushWindowOpen = false
        records[index].accessoryWindowOpen = false
        records[index].budgetSession = false
        records[index].pendingStart = nil
        records[index].awaitingReady = false
        records[index].lastTerminationWasSystem = reason.isSystemTermination
        records[index].lastSystemTermination = reason.isSystemTermination ? reason : nil
        let blocksWakes =
            reason.isSystemTermination && !record.settings.background.wakeAfterSystemTermination
            && record.wakeBlock == nil
        if blocksWakes {
            records[index].wakeBlock = .systemTermination(reason)
            decide(index, "Fetch, push and accessory wakes will not launch it until the user opens it.", at: now, &out)
        }
        if reason.isGraceful && !processGone {
            if record.state == .suspended {
                out.append(.thaw(app: record.name))
            }
            out.append(.terminate(app: record.name, reason: reason))
            records[index].terminating = reason
            arm(index, .terminationGrace, at: now + record.settings.termination.grace, &out)
        } else {
            if !processGone {
                out.append(.kill(app: record.name, reason: reason))
            }
            // Every kill the system decided (or the kernel made) runs the operator's hook.
            if reason.isSystemTermination, let command = policy.hooks.onKill {
                out.append(
                    .runHook(
                        HookInvocation(
                            kind: .kill, command: command, timeout: policy.hooks.timeout, app: record.name,
                            reason: reason, footprint: record.footprint, band: record.band,
                            level: memoryTracker.level)))
            }
            setState(index, .notRunning, because: sentence, at: now, &out)
        }
        // A fetch cut short by the termination: the next wake counts from the one just taken.
        // A wake block cancels the planned wake.
        if record.fetchWindowOpen || (blocksWakes && record.hasFetchMode) {
            planFetch(index, at: now, &out)
        }
    }

    /// The timers that belong to a running process; fetch wakes and push slots outlive it.
    static let processTimers: [TimerID.Kind] = [
        .backgroundGrace, .taskExpirationWarning, .taskBudget, .fetchWindow, .pushWindow, .accessoryWindow,
        .launchTimeout, .terminationGrace, .watchdog, .cpuBudget, .activityLimit,
    ]

    /// The process of launch `launch` ended. An exit the core asked for completes a graceful
    /// termination; an unexpected one is recorded as `exited` or `crashed`.
    /// Whether `event` ends an app's process on its own (`endsOnItsOwn(_:launch:)`), before the
    /// core has seen it (`take(_:at:)`).
    func endsOnItsOwn(_ event: LifecycleEvent) -> Bool {
        guard case .processExited(let app, let launch, _) = event else { return false }
        return endsOnItsOwn(app, launch: launch)
    }

    /// Whether the end of launch `launch` of `app` is the app's own: its process runs and the
    /// core asked for no termination of it. Ends that follow a kill or a SIGTERM are not.
    public func endsOnItsOwn(_ app: String, launch: Int) -> Bool {
        guard let index = indexByName[app] else { return false }
        return records[index].launch == launch && records[index].isRunning && records[index].terminating == nil
    }

    mutating func processExited(
        _ app: String, launch: Int, end: ProcessEnd, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        victimEnded(app, launch: launch)
        guard let index = indexByName[app], records[index].launch == launch, records[index].isRunning else { return }
        if let reason = records[index].terminating {
            records[index].terminating = nil
            cancel(index, .terminationGrace, &out)
            let sentence = reason == .policyRemoved ? "exited after removal from the policy" : "exited after SIGTERM"
            setState(index, .notRunning, because: sentence, at: now, &out)
            reopenIfAsked(index, at: now, &out)
            return
        }
        switch end {
        case .exited:
            terminate(index, reason: .exited, because: "the process exited", processGone: true, at: now, &out)
        case .crashed(let description):
            decide(index, "The process crashed: \(description).", at: now, &out)
            crashed(index, at: now, &out)
        case .oomKilled(let kill):
            decide(index, kill.sentence, at: now, &out)
            terminate(index, reason: kill.reason, because: Self.oomSentence(kill), processGone: true, at: now, &out)
        }
    }

    /// A launch could not be carried out (`launchFailed`). None of the app's code ran, so its
    /// preserved state is kept and its next launch restores if this one would have.
    mutating func spawnFailed(
        _ app: String, launch: Int, message: String, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard let index = indexByName[app], records[index].launch == launch, records[index].isRunning,
            records[index].terminating == nil
        else { return }
        decide(index, "Launch \(launch) failed: \(message)", at: now, &out)
        let restores = records[index].lastTerminationWasSystem
        let killedBefore = records[index].lastSystemTermination
        terminate(index, reason: .launchFailed, because: "its launch failed", processGone: true, at: now, &out)
        records[index].lastTerminationWasSystem = restores
        records[index].lastSystemTermination = killedBefore
    }

    /// A crash; within the crash window of a restoring launch it deletes the preserved state (§1.4).
    private mutating func crashed(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let record = records[index]
        terminate(index, reason: .crashed, because: "the process crashed", processGone: true, at: now, &out)
        if record.launchRestored && now - record.launchTime <= record.settings.restoration.crashWindow {
            decide(index, "Crashed soon after restoring: its preserved state is deleted.", at: now, &out)
            deletePreservedState(index, &out)
        }
    }

    /// The runtime did not freeze the app because it holds a guarded resource path (rule 7).
    mutating func heldAtSuspension(_ app: String, resource: String, at now: Instant, _ out: inout [LifecycleAction]) {
        guard let index = indexByName[app], records[index].isRunning, records[index].terminating == nil else { return }
        decide(index, "Holds shared resource \"\(resource)\" through one of its paths at suspension.", at: now, &out)
        terminate(index, reason: .heldSharedResource, because: "held a shared resource at suspension", at: now, &out)
    }
}
