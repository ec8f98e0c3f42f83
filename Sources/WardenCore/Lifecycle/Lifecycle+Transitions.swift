/// State changes and the bookkeeping every one of them carries: the journal record, the
/// status publication, the `oom_score_adj` band, and the timers that go with each state.
extension Lifecycle {
    // MARK: Looking apps up

    /// The index of an app the policy declares; throws `.notFound` otherwise.
    func appIndex(_ app: String) throws(LifecycleError) -> Int {
        guard let index = indexByName[app], records[index].inPolicy else {
            throw LifecycleError.unknownApp(app)
        }
        return index
    }

    /// The index of an app whose process is running (or frozen) and not being terminated;
    /// throws `.notFound` or `.conflict` naming the call.
    func runningAppIndex(_ app: String, for call: String) throws(LifecycleError) -> Int {
        let index = try appIndex(app)
        if records[index].state == .notRunning {
            throw LifecycleError(.conflict, "App \"\(app)\" is not running, so it cannot \(call).")
        }
        if records[index].terminating != nil {
            throw LifecycleError(.conflict, "App \"\(app)\" is being terminated, so it cannot \(call).")
        }
        return index
    }

    // MARK: Timers

    mutating func arm(_ index: Int, _ kind: TimerID.Kind, at deadline: Instant, _ out: inout [LifecycleAction]) {
        records[index].timers[kind] = deadline
        out.append(.armTimer(TimerID(app: records[index].name, kind: kind), deadline: deadline))
    }

    mutating func cancel(_ index: Int, _ kind: TimerID.Kind, _ out: inout [LifecycleAction]) {
        guard records[index].timers[kind] != nil else { return }
        records[index].timers[kind] = nil
        out.append(.cancelTimer(TimerID(app: records[index].name, kind: kind)))
    }

    func isArmed(_ index: Int, _ kind: TimerID.Kind) -> Bool {
        records[index].timers[kind] != nil
    }

    // MARK: Journal, status, score

    /// The kill band of the app at `index`, read field by field: calling `AppRecord.band` on
    /// `records[index]` copies the whole record.
    @inline(__always) func band(of index: Int) -> KillBand {
        KillBand(
            state: records[index].state, hasTasks: !records[index].tasks.isEmpty,
            hasOpenWindow: records[index].hasOpenWindow,
            overFairShare: records[index].isOverFairShare, holdsActivity: records[index].heldActivities != nil)
    }

    func journal(_ index: Int, _ kind: JournalRecord.Kind, at now: Instant, _ out: inout [LifecycleAction]) {
        out.append(.journal(JournalRecord(app: records[index].name, time: now, kind: kind)))
    }

    func decide(_ index: Int, _ sentence: String, at now: Instant, _ out: inout [LifecycleAction]) {
        journal(index, .decision(sentence), at: now, &out)
    }

    /// Publishes `status` if it differs from the last one published (`terminating` always).
    mutating func publish(_ index: Int, _ status: AppStatus, _ out: inout [LifecycleAction]) {
        guard records[index].publishedStatus != status || status == .terminating else { return }
        records[index].publishedStatus = status
        out.append(.publishStatus(app: records[index].name, status: status))
    }

    /// Sets `oom_score_adj` for the app's band (rule 10): always when `force`, otherwise only
    /// when the band or the score changed.
    mutating func updateScore(_ index: Int, force: Bool, _ out: inout [LifecycleAction]) {
        guard records[index].state != .notRunning else { return }
        let band = self.band(of: index)
        let score = OOMScore.score(
            band: band, footprint: records[index].reclaimable, isProtected: records[index].isProtected)
        guard force || band != records[index].lastBand || score != records[index].lastScore else { return }
        records[index].lastBand = band
        records[index].lastScore = score
        out.append(.setOOMScore(app: records[index].name, band: band, score: score))
    }

    /// Moves the app to `state`, journals the change with its reason, tells the app, publishes
    /// the coarse status of managed apps and sets the app's `oom_score_adj`.
    mutating func setState(
        _ index: Int, _ state: AppState, because reason: String, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        let from = records[index].state
        guard from != state else { return }
        records[index].state = state
        journal(index, .stateChange(from: from, to: state, because: reason), at: now, &out)
        cpuStateChanged(index, from: from, at: now, &out)
        guard state != .notRunning else {
            records[index].heldActivities = nil
            records[index].lastBand = nil
            records[index].lastScore = nil
            return
        }
        if state != .suspended {
            out.append(.deliver(app: records[index].name, message: .stateChanged(state)))
        }
        if records[index].isManaged {
            publish(index, state.status, &out)
        }
        updateScore(index, force: true, &out)
    }

    // MARK: Launch

    /// Spawns a new process of the app (launch number + 1) and resets what belongs to a launch.
    mutating func launch(_ index: Int, reason: LaunchReason, at now: Instant, _ out: inout [LifecycleAction]) {
        let restore = records[index].startLaunch(reason: reason, at: now)
        records[index].launchedWith = ProcessLaunchSettings(appPolicies[index])
        // The group's limits come before the spawn, so that the process never runs without them.
        let limits = groupLimits(of: index, inForeground: reason == .user)
        if !limits.isEmpty {
            records[index].groupLimits = limits
            out.append(.setMemoryLimits(app: records[index].name, limits: limits))
        }
        // So is the CPU class, so that a background launch never runs in the foreground's class.
        setCPUClass(index, reason == .user ? .foreground : .background, &out)
        out.append(.spawn(app: records[index].name, launch: records[index].launch, reason: reason, restore: restore))
        if records[index].readiness == .notify {
            arm(index, .launchTimeout, at: now + records[index].settings.launch.timeout, &out)
        }
        if !records[index].isManaged {
            arm(index, .watchdog, at: now + records[index].settings.watchdog.interval, &out)
        }
    }

    /// A passive launch (rule 6): the app is launched straight into background.
    mutating func launchPassively(
        _ index: Int, reason: LaunchReason, because sentence: String, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        makeRoomForLaunch(index, at: now, &out)
        launch(index, reason: reason, at: now, &out)
        journal(index, .analytics(.appStartPassively(reason: reason)), at: now, &out)
        setState(index, .background, because: sentence, at: now, &out)
        startBudget(index, at: now)
    }

    // MARK: Foreground

    /// Brings a running or new app into the foreground as `inactive`, with the `$AppStart` to
    /// journal once it becomes active.
    mutating func enterForeground(
        _ index: Int, start: AnalyticsEvent, because reason: String, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        cancel(index, .backgroundGrace, &out)
        cancel(index, .taskExpirationWarning, &out)
        cancel(index, .taskBudget, &out)
        cancel(index, .activityLimit, &out)
        records[index].budgetSession = false
        records[index].foregroundSince = now
        records[index].lastUsed = now
        records[index].everInForeground = true
        records[index].pendingStart = start
        foreground.append(index)
        setState(index, .inactive, because: reason, at: now, &out)
        // Lifted to the foreground limit; a footprint above it is for the next measurement to judge.
        updateGroupLimits(index, enforcing: false, at: now, &out)
    }

    /// Makes a foreground app active, journaling its pending `$AppStart` if it has one.
    mutating func becomeActive(_ index: Int, because reason: String, at now: Instant, _ out: inout [LifecycleAction]) {
        setState(index, .active, because: reason, at: now, &out)
        records[index].activeSinceLaunch = true
        if let start = records[index].pendingStart {
            records[index].pendingStart = nil
            if case .appStart(_, _, _?) = start { records[index].coldLaunches = (records[index].coldLaunches ?? 0) + 1 }
            journal(index, .analytics(start), at: now, &out)
        }
    }

    /// Marks a foreground app as the most recently used one.
    mutating func touch(_ index: Int, at now: Instant) {
        records[index].lastUsed = now
        if let position = foreground.firstIndex(of: index) {
            foreground.remove(at: position)
            foreground.append(index)
        }
    }

    // MARK: Background

    /// A foreground app enters background (home, lock, or its slot taken): `$AppEnd`, the
    /// status, "save your state", a fresh task budget, then whatever keeps it awake or the grace.
    mutating func enterBackground(_ index: Int, because reason: String, at now: Instant, _ out: inout [LifecycleAction])
    {
        guard records[index].state == .inactive || records[index].state == .active else { return }
        if let position = foreground.firstIndex(of: index) {
            foreground.remove(at: position)
        }
        records[index].lastUsed = now
        records[index].pendingStart = nil
        let duration = now - records[index].foregroundSince
        journal(index, .analytics(.appEnd(foregroundDuration: duration)), at: now, &out)
        setState(index, .background, because: reason, at: now, &out)
        out.append(.deliver(app: records[index].name, message: .saveState))
        records[index].hasPreservedState = true
        startBudget(index, at: now)
        // The background limit applies from now on; an app already above it is terminated.
        updateGroupLimits(index, at: now, &out)
        settleBackground(index, at: now, &out)
        if records[index].holdsActivity && records[index].state == .background {
            let held = records[index].activities.map { "\($0.id) (\($0.mode.rawValue))" }.joined(separator: ", ")
            decide(
                index,
                "Keeps running in background: it holds activity \(held), so no grace or task budget runs and it is not suspended.",
                at: now, &out)
        }
    }

    /// Starts a fresh background session's task budget; paused while the screen is locked.
    mutating func startBudget(_ index: Int, at now: Instant) {
        records[index].budgetSession = true
        records[index].budgetRemaining = records[index].settings.background.taskBudget
        records[index].budgetMark = isLocked ? nil : now
    }

    /// Arms what a background app needs now: nothing while it holds an activity (no grace, no
    /// task budget), budget timers while tasks are open, nothing while a window is open,
    /// otherwise the background grace (managed apps only).
    mutating func settleBackground(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].state == .background, records[index].terminating == nil else { return }
        if records[index].holdsActivity {
            cancel(index, .backgroundGrace, &out)
            cancel(index, .taskExpirationWarning, &out)
            cancel(index, .taskBudget, &out)
            if let limit = records[index].settings.background.activityLimit, !isArmed(index, .activityLimit) {
                arm(index, .activityLimit, at: now + limit, &out)
            }
        } else if !records[index].tasks.isEmpty {
            cancel(index, .backgroundGrace, &out)
            armBudgetTimers(index, at: now, &out)
        } else if records[index].hasOpenWindow {
            cancel(index, .backgroundGrace, &out)
        } else if records[index].isManaged {
            arm(index, .backgroundGrace, at: now + records[index].settings.background.grace, &out)
        }
    }

    /// Suspends a background app with nothing keeping it awake at once.
    mutating func suspendIfIdle(_ index: Int, because reason: String, at now: Instant, _ out: inout [LifecycleAction]) {
        guard !records[index].holdsActivity, records[index].tasks.isEmpty, !records[index].hasOpenWindow else {
            return
        }
        suspend(index, because: reason, at: now, &out)
    }

    /// Suspends a background app (rule 7): an app holding an acquired shared resource is
    /// terminated instead; otherwise it is frozen with the paths of its resources guarded. An app
    /// holding an activity is never suspended (rule 14).
    mutating func suspend(_ index: Int, because reason: String, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].state == .background, records[index].terminating == nil,
            !records[index].holdsActivity
        else { return }
        cancel(index, .backgroundGrace, &out)
        guard records[index].isManaged else {
            decide(index, "Stays in background unfrozen: its status is reported by the app.", at: now, &out)
            return
        }
        if let resource = records[index].heldResources.first {
            decide(index, "Holds shared resource \"\(resource)\" at suspension.", at: now, &out)
            terminate(
                index, reason: .heldSharedResource, because: "held a shared resource at suspension", at: now, &out)
            return
        }
        out.append(.freeze(app: records[index].name, guardPaths: guardPaths(of: index)))
        setState(index, .suspended, because: reason, at: now, &out)
        if compressesWhenSuspended(index) {
            out.append(.compress(app: records[index].name, launch: records[index].launch))
        }
    }

    /// The paths of the shared resources the app's policy lists, guarded when it is frozen.
    func guardPaths(of index: Int) -> [ResourcePath] {
        let names = appPolicies[index].resources
        guard !names.isEmpty else { return [] }
        var paths: [ResourcePath] = []
        for name in names {
            for path in policy.resources[name]?.paths ?? [] {
                paths.append(ResourcePath(resource: name, path: path))
            }
        }
        return paths
    }

    /// Thaws a suspended app into background (for a fetch, a push or an accessory).
    mutating func thaw(_ index: Int, because reason: String, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].state == .suspended else { return }
        out.append(.thaw(app: records[index].name))
        setState(index, .background, because: reason, at: now, &out)
    }
}
