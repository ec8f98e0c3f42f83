/// What the person at the device does (DESIGN §1.1), and the app's `ready` call that ends a
/// cold launch.
extension Lifecycle {
    /// `open APP`: a cold launch, a hot start, or just making a foreground app the most recent.
    /// Refused (`conflict`) while the screen is locked.
    mutating func open(_ app: String, at now: Instant, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try appIndex(app)
        if records[index].terminating != nil {
            throw LifecycleError(.conflict, "App \"\(app)\" is being terminated and cannot be opened until it exits.")
        }
        // Tapping an icon needs an unlocked screen; it uncovers an overlaid one.
        if isLocked {
            throw LifecycleError(
                .conflict, "The screen is locked, so app \"\(app)\" cannot be opened: unlock the screen first.")
        }
        if isOverlaid { overlayEnd(at: now, &out) }

        if records[index].wakeBlock != nil {
            records[index].wakeBlock = nil
            decide(index, "Opened by the user: fetch and push wakes are allowed again.", at: now, &out)
        }
        if records[index].hasFetchMode {
            fetchScheduler.recordOpen(app: app, at: now)
            planFetch(index, at: now, &out)
        }

        let state = records[index].state
        if records[index].isInForeground {
            touch(index, at: now)
            return
        }
        records[index].rememberOpen(at: now)
        // Room for a launch is made while the apps in the foreground are still there, so that
        // the one the open sends to the background is not taken for it.
        if state == .notRunning { makeRoomForLaunch(index, at: now, &out) }
        makeRoomInForeground(at: now, &out)
        switch state {
        case .notRunning:
            // Read before the launch: an app the device had killed comes back cold.
            let killedBy = records[index].lastSystemTermination
            launch(index, reason: .user, at: now, &out)
            enterForeground(
                index, start: .appStart(cold: true, afterPassive: false, afterKill: killedBy),
                because: killedBy == nil
                    ? "launched by the user" : "launched by the user after the device had killed it",
                at: now, &out)
            handOverHeldPush(index, &out)
        case .background, .suspended:
            if state == .suspended {
                out.append(.thaw(app: app))
            }
            let afterPassive = records[index].launchedPassively && !records[index].activeSinceLaunch
            enterForeground(
                index, start: .appStart(cold: false, afterPassive: afterPassive), because: "opened by the user",
                at: now, &out)
            handOverHeldPush(index, &out)
            // An app a wake launched that is not ready yet stays inactive, its launch watchdog
            // running, until it is (`becomeReady`).
            if !records[index].awaitingReady {
                becomeActive(index, because: "hot start", at: now, &out)
            }
        case .inactive, .active:
            break
        }
    }

    /// An app the user opens is awake: the push held for it (kept for its launch, held by the
    /// throttle or for memory) is handed over without a window and without taking a slot.
    mutating func handOverHeldPush(_ index: Int, _ out: inout [LifecycleAction]) {
        let app = records[index].name
        guard let pending = pushRouter.takePendingForLaunch(app: app) else { return }
        if let id = pending.id { records[index].deliveredPushIDs.insert(id) }
        cancel(index, .pushSlot, &out)
        out.append(.deliver(app: app, message: .pushPayload(payload: pending.payload, id: pending.id, window: .zero)))
    }

    /// Sends the least recently used foreground apps to background until a slot is free.
    mutating func makeRoomInForeground(at now: Instant, _ out: inout [LifecycleAction]) {
        let slots = max(policy.foregroundSlots, 1)
        while foreground.count >= slots {
            enterBackground(foreground[0], because: "another app took its foreground slot", at: now, &out)
        }
    }

    /// `ready`: a launching app is ready and becomes active (unless covered by an overlay).
    mutating func ready(_ app: String, at now: Instant, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "report that it is ready")
        becomeReady(index, at: now, &out)
    }

    /// The runtime reports that the process of `launch` runs: an app with
    /// `readiness = "immediate"` is ready now; a `notify` app waits for its own `ready` call
    /// while the launch watchdog runs. A report about an older launch is ignored.
    mutating func launched(_ app: String, launch: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard let index = indexByName[app], records[index].launch == launch, records[index].isRunning,
            records[index].terminating == nil, records[index].readiness == .immediate
        else { return }
        becomeReady(index, at: now, &out)
    }

    /// A launching app is ready: the launch watchdog stops and an app waiting in the foreground
    /// becomes active (unless covered by an overlay).
    mutating func becomeReady(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].awaitingReady else { return }
        records[index].awaitingReady = false
        cancel(index, .launchTimeout, &out)
        if records[index].state == .inactive && !isOverlaid {
            becomeActive(index, because: "ready after launch", at: now, &out)
        }
    }

    /// `home`: every foreground app goes to background.
    mutating func home(at now: Instant, _ out: inout [LifecycleAction]) {
        for index in foreground {
            enterBackground(index, because: "the user went home", at: now, &out)
        }
    }

    /// `overlay`: active foreground apps become inactive.
    mutating func overlay(at now: Instant, _ out: inout [LifecycleAction]) {
        isOverlaid = true
        for index in foreground where records[index].state == .active {
            setState(index, .inactive, because: "covered by an overlay", at: now, &out)
        }
    }

    /// `overlay-end`: covered foreground apps become active again, without `$AppStart`
    /// (unless they had not yet been active since entering the foreground).
    mutating func overlayEnd(at now: Instant, _ out: inout [LifecycleAction]) {
        isOverlaid = false
        for index in foreground where records[index].state == .inactive && !records[index].awaitingReady {
            becomeActive(index, because: "the overlay went away", at: now, &out)
        }
    }

    /// `lock`: foreground apps go to background and background-task clocks pause.
    mutating func lock(at now: Instant, _ out: inout [LifecycleAction]) {
        guard !isLocked else { return }
        for index in records.indices where records[index].budgetSession && records[index].budgetMark != nil {
            records[index].budgetRemaining = records[index].budgetLeft(at: now) ?? .zero
            records[index].budgetMark = nil
            cancel(index, .taskExpirationWarning, &out)
            cancel(index, .taskBudget, &out)
        }
        isLocked = true
        out.append(.journal(JournalRecord(app: Self.systemJournalName, time: now, kind: .system(.screenLocked))))
        for index in foreground {
            enterBackground(index, because: "the screen locked", at: now, &out)
        }
    }

    /// `unlock`: background-task clocks resume with the time they had left.
    mutating func unlock(at now: Instant, _ out: inout [LifecycleAction]) {
        guard isLocked else { return }
        isLocked = false
        out.append(.journal(JournalRecord(app: Self.systemJournalName, time: now, kind: .system(.screenUnlocked))))
        for index in records.indices where records[index].budgetSession && records[index].budgetMark == nil {
            records[index].budgetMark = now
            if records[index].state == .background && !records[index].tasks.isEmpty {
                armBudgetTimers(index, at: now, &out)
            }
        }
    }

    /// `force-quit APP`: graceful termination, preserved state deleted, no wakes until opened.
    mutating func forceQuit(_ app: String, at now: Instant, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try appIndex(app)
        if records[index].isRunning {
            terminate(index, reason: .userForceQuit, because: "force-quit by the user", at: now, &out)
        }
        records[index].wakeBlock = .forceQuit
        deletePreservedState(index, &out)
        planFetch(index, at: now, &out)
    }

    /// `reset APP`: a reinstall. Terminated if running, preserved state, fetch history and the
    /// person's opens (`kill_order = "least_missed"`) deleted, device token rotated, force-quit
    /// or system-termination wake block cleared.
    mutating func reset(_ app: String, at now: Instant, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try appIndex(app)
        if records[index].isRunning {
            terminate(index, reason: .userForceQuit, because: "reinstalled", at: now, &out)
        }
        deletePreservedState(index, &out)
        records[index].lastTerminationWasSystem = false
        records[index].lastSystemTermination = nil
        records[index].wakeBlock = nil
        records[index].requestedFetchInterval = records[index].policyFetchInterval
        records[index].lastMemoryWarning = nil
        records[index].userOpens = nil
        fetchScheduler.reset(app: app)
        pushRouter.reset(app: app)
        pushRouter.rotateToken(for: app)
        cancel(index, .pushSlot, &out)
        cancel(index, .fetchWake, &out)
        planFetch(index, at: now, &out)
    }

    mutating func deletePreservedState(_ index: Int, _ out: inout [LifecycleAction]) {
        records[index].hasPreservedState = false
        out.append(.deleteRestorationState(app: records[index].name))
    }
}
