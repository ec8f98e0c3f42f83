/// Background fetch (rule 4), silent pushes (rule 5), the passive launches they cause (rule 6),
/// and the stall every background window counts, accessory windows (rule 14) included.
extension Lifecycle {
    // MARK: Fetch

    /// Plans the app's next fetch wake and re-arms the `fetchWake` timer of every app whose
    /// planned wake changed (coalescing may move other apps' wakes).
    mutating func planFetch(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let enabled = records[index].wantsFetch
        // A planned wake always has its timer armed (a wake that came due is consumed by the next plan).
        guard enabled || records[index].timers[.fetchWake] != nil || records[index].hasFetchMode else { return }
        let changes = fetchScheduler.plan(
            app: records[index].name, requested: records[index].requestedFetchInterval, enabled: enabled,
            settings: records[index].settings.fetch, now: now)
        for change in changes {
            guard let changed = indexByName[change.app] else { continue }
            if let wake = change.wake {
                arm(changed, .fetchWake, at: wake, &out)
            } else {
                cancel(changed, .fetchWake, &out)
            }
        }
    }

    /// `set-fetch-interval`: the app's requested interval from now on.
    mutating func setFetchInterval(
        _ app: String, _ interval: FetchInterval, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try appIndex(app)
        records[index].requestedFetchInterval = interval
        planFetch(index, at: now, &out)
    }

    /// A fetch wake came due: thaw or launch the app into background and open a fetch window.
    /// An app in the foreground skips the wake.
    mutating func fetchWakeFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let record = records[index]
        guard record.wantsFetch, record.terminating == nil else { return }
        if record.isInForeground {
            decide(index, "Background fetch skipped: the app is in the foreground.", at: now, &out)
            planFetch(index, at: now, &out)
            return
        }
        if record.fetchWindowOpen {
            decide(index, "Background fetch skipped: a fetch window is already open.", at: now, &out)
            planFetch(index, at: now, &out)
            return
        }
        if let why = memoryRefusesWake(index) {
            decide(index, "Background fetch skipped: \(why).", at: now, &out)
            planFetch(index, at: now, &out)
            return
        }
        chargeWake(index)
        switch record.state {
        case .notRunning:
            launchPassively(index, reason: .fetch, because: "launched in the background for a fetch", at: now, &out)
        case .suspended:
            thaw(index, because: "woken for a background fetch", at: now, &out)
        case .background:
            cancel(index, .backgroundGrace, &out)
        case .inactive, .active:
            break
        }
        let window = record.settings.fetch.window
        records[index].fetchWindowOpen = true
        out.append(.deliver(app: record.name, message: .fetchStart(window: window)))
        arm(index, .fetchWindow, at: now + window, &out)
        startStallCount(index, .fetch, &out)
        updateScore(index, force: false, &out)
    }

    /// `complete-fetch RESULT`: closes the window, records the result and re-plans; the app is
    /// suspended at once if nothing else keeps it awake.
    mutating func completeFetch(
        _ app: String, result: CompletionResult, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "complete a fetch")
        guard records[index].fetchWindowOpen else {
            throw LifecycleError(.conflict, "App \"\(app)\" has no fetch window open, so it cannot complete a fetch.")
        }
        records[index].fetchWindowOpen = false
        cancel(index, .fetchWindow, &out)
        fetchScheduler.recordFetch(app: app, result: result, at: now)
        planFetch(index, at: now, &out)
        closeWindow(index, because: "its fetch completed", at: now, &out)
    }

    /// The fetch window reached its end: where the app's stall is counted, it is measured first
    /// (`countStall`); otherwise the window ends.
    mutating func fetchWindowFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].fetchWindowOpen else { return }
        if awaitStall(index, .fetch, at: now, &out) { return }
        fetchWindowEnded(index, at: now, &out)
    }

    /// The fetch window ended without `complete-fetch`: the app is terminated (`fetchTimeout`);
    /// an app the user opened meanwhile only has its window closed.
    mutating func fetchWindowEnded(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        records[index].fetchWindowOpen = false
        fetchScheduler.recordFetch(app: records[index].name, result: nil, at: now)
        if records[index].isInForeground {
            decide(index, "Fetch window ended without completion while in the foreground.", at: now, &out)
        } else {
            terminate(index, reason: .fetchTimeout, because: "fetch window ended without completion", at: now, &out)
        }
        planFetch(index, at: now, &out)
    }

    /// After a window closed: suspend a background app at once if nothing else keeps it awake.
    mutating func closeWindow(_ index: Int, because reason: String, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].state == .background else { return }
        updateScore(index, force: false, &out)
        if records[index].tasks.isEmpty && !records[index].hasOpenWindow {
            suspend(index, because: reason, at: now, &out)
        }
    }

    // MARK: Memory for wakes

    /// Why a fetch wake due now must wait for memory, or nil when it may wake the app (rule 4:
    /// a fetch is an opportunity the system grants, not a promise, as on iOS). Where the level
    /// is measured (memory samples), it waits while the level is warning or critical, and when
    /// the memory the wake would bring back into RAM (`wakeCost`), with that of the wakes whose
    /// windows are still open, would take what could still be freed without killing, as the
    /// last sample measured it, under `warning_enter`: a batch of compressed apps thawed
    /// together would otherwise cost the killer an app. The skipped wake counts as taken; the
    /// next comes an interval later.
    func memoryRefusesWake(_ index: Int) -> String? {
        // A level reported rather than measured (a scenario's `pressure` step) holds back nothing.
        guard let available = lastEffectiveAvailable, let total = deviceMemory else { return nil }
        let level = memoryTracker.level
        if level >= .warning { return "memory pressure is \(level)" }
        let cost = wakeCost(index)
        guard cost > 0 else { return nil }
        var underWay: Int64 = 0
        for other in records.indices where other != index && records[other].hasOpenWindow {
            underWay += records[other].wakeCharge
        }
        let floor = memoryTracker.settings.warningEnter.bytes(ofTotal: total)
        let left = available - underWay - cost
        guard left < floor else { return nil }
        let others = underWay > 0 ? ", with \(DurationFormat.sizeString(underWay)) for wakes under way," : ""
        let what =
            isEstimated(index)
            ? "\(Self.launchCostPhrase) \(DurationFormat.sizeString(cost)) (the mean footprint of the running apps; it has none of its own yet)"
            : "\(Self.wakeCostPhrase) \(DurationFormat.sizeString(cost))"
        return
            "\(what)\(others) would leave \(DurationFormat.sizeString(max(0, left))) that could be freed without killing, under warning_enter (\(DurationFormat.sizeString(floor)))"
    }

    /// How a fetch skipped for the memory its wake would bring back is journaled, after
    /// "Background fetch skipped: ".
    static let wakeCostPhrase = "bringing back its"
    /// The same for a launch of an app never measured, whose cost is estimated.
    static let launchCostPhrase = "launching it, at an estimated"

    /// Whether `actions`, the core's answer to a timer, a push or an accessory, skipped a fetch,
    /// held a push or dropped an accessory event for the memory its wake would bring back: figures (an app's part in swap, the last sample) that the
    /// journal does not keep, so a replay may wake the app.
    public static func wakeWaitedForMemory(_ actions: [LifecycleAction]) -> Bool {
        actions.contains { action in
            guard case .journal(let record) = action, case .decision(let text) = record.kind else { return false }
            return ["Background fetch skipped: ", pushHeldPrefix, accessoryDroppedPrefix].contains { prefix in
                text.hasPrefix(prefix + wakeCostPhrase + " ") || text.hasPrefix(prefix + launchCostPhrase + " ")
            }
        }
    }

    /// The memory a wake of the app would bring back into RAM: a suspended app's part pushed out
    /// to swap, a not-running app's last measured footprint; nothing for an app already running.
    /// An app never measured (not launched since it was declared) would take about what the
    /// others take: the mean footprint of the running apps, so that a batch of first launches
    /// into background does not fill the device with apps the user has not opened.
    func wakeCost(_ index: Int) -> Int64 {
        switch records[index].state {
        case .suspended: records[index].swappedBytes
        case .notRunning: isEstimated(index) ? meanMeasuredFootprint() : records[index].footprint
        case .background, .inactive, .active: 0
        }
    }

    /// Whether the app's wake cost is an estimate: it is not running and was never measured.
    func isEstimated(_ index: Int) -> Bool {
        records[index].state == .notRunning && records[index].footprint == 0
    }

    /// The mean footprint of the running apps with one measured; 0 when none has one. Stopped
    /// apps do not count: the last size of an app killed for its limit would otherwise hold
    /// every new app back for as long as it stays stopped.
    func meanMeasuredFootprint() -> Int64 {
        var sum: Int64 = 0
        var count: Int64 = 0
        for index in records.indices where records[index].isRunning && records[index].footprint > 0 {
            sum += records[index].footprint
            count += 1
        }
        return count == 0 ? 0 : sum / count
    }

    /// Records what a wake about to happen brings back, for the fetch wakes that follow it.
    mutating func chargeWake(_ index: Int) {
        let cost = wakeCost(index)
        records[index].wakeCharge = records[index].hasOpenWindow ? max(records[index].wakeCharge, cost) : cost
    }

    // MARK: Push

    /// `push APP|TOKEN PAYLOAD`: size, JSON and target checks, then admission (rule 5).
    mutating func push(
        to target: PushTarget, payload: String, id: String?, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index: Int
        switch target {
        case .app(let app):
            index = try appIndex(app)
        case .token(let token):
            switch pushRouter.lookup(token: token) {
            case .app(let app):
                index = try appIndex(app)
            case .stale(let app):
                throw LifecycleError(
                    .unregistered,
                    "Device token \"\(token)\" is unregistered: app \"\(app)\" was reinstalled and has a new token.")
            case .unknown:
                throw LifecycleError(.notFound, "No app has device token \"\(token)\".")
            }
        }
        let settings = records[index].settings.push
        let size = payload.utf8.count
        if size > settings.maxPayloadBytes {
            throw LifecycleError(
                .payloadTooLarge,
                "The push payload is \(size) bytes; at most \(settings.maxPayloadBytes) bytes are allowed.")
        }
        let parsed = try PushPayload(parsing: payload)
        let notificationID = id ?? parsed.id
        let app = records[index].name

        if let notificationID, records[index].deliveredPushIDs.contains(notificationID) {
            decide(index, "Push \"\(notificationID)\" dropped: it was delivered before.", at: now, &out)
            out.append(.reply(.push(.duplicate)))
            return
        }
        // A foreground app is awake already: the payload is handed over without taking a slot.
        if records[index].isInForeground && parsed.contentAvailable && records[index].hasRemoteNotificationMode
            && records[index].terminating == nil
        {
            deliverPush(index, PushRouter.Pending(payload: payload, id: notificationID), at: now, &out)
            out.append(.reply(.push(.delivered)))
            return
        }
        // Without the remote-notification mode a push is accepted but wakes nothing.
        if parsed.contentAvailable && !records[index].hasRemoteNotificationMode {
            decide(
                index, "Push wakes nothing: the app does not have the remote-notification background mode.", at: now,
                &out)
            out.append(.reply(.push(.notWoken)))
            return
        }
        // A force-quit app, one the system terminated, or one being stopped (reset, policy
        // change), is not woken: the push waits for its next launch. A wake that memory cannot
        // take now waits for memory, as a fetch does (rule 4).
        let memoryHold = parsed.contentAvailable ? pushWakeRefused(index) : nil
        let admission = pushRouter.admit(
            app: app, payload: payload, id: notificationID, contentAvailable: parsed.contentAvailable,
            isForceQuit: records[index].wakeBlock != nil || records[index].terminating != nil,
            memoryHolds: memoryHold != nil, now: now, settings: settings)
        switch admission {
        case .deliver:
            cancel(index, .pushSlot, &out)
            deliverPush(index, PushRouter.Pending(payload: payload, id: notificationID), at: now, &out)
            out.append(.reply(.push(.delivered)))
        case .coalesce(let until):
            decide(index, "Push held until the next wake slot: \(settings.maxPerHour) wakes this hour.", at: now, &out)
            if records[index].timers[.pushSlot] != until {
                arm(index, .pushSlot, at: until, &out)
            }
            out.append(.reply(.push(.coalesced)))
        case .holdForMemory:
            holdPushForMemory(index, because: memoryHold ?? "memory is short", at: now, &out)
            out.append(.reply(.push(.waitingForMemory)))
        case .pendingLaunch:
            let why = records[index].wakeBlock?.pushSentence ?? "the app is being stopped"
            decide(index, "Push kept for the next launch: \(why).", at: now, &out)
            out.append(.reply(.push(.pendingLaunch)))
        case .notWoken:
            decide(index, "Push wakes nothing: it has no content-available.", at: now, &out)
            out.append(.reply(.push(.notWoken)))
        case .duplicate:
            decide(index, "Push dropped: it was delivered before.", at: now, &out)
            out.append(.reply(.push(.duplicate)))
        }
    }

    /// The app's push slot freed up: deliver the coalesced push, or wait for the next slot.
    mutating func pushSlotFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        let record = records[index]
        let settings = record.settings.push
        if record.wakeBlock != nil || record.terminating != nil {
            guard let next = pushRouter.nextSlot(app: record.name, now: now, settings: settings) else { return }
            if record.wakeBlock != nil {
                // Its next launch takes the held push.
                if next > now { arm(index, .pushSlot, at: next, &out) }
            } else {
                // An app being stopped (and started again) is tried again once that is done.
                arm(index, .pushSlot, at: max(next, now + PushRouter.memoryRetry), &out)
            }
            return
        }
        if pushRouter.coalescedPush(app: record.name) != nil, let why = pushWakeRefused(index) {
            holdPushForMemory(index, because: why, journaled: false, at: now, &out)
        } else if let pending = pushRouter.takeCoalesced(app: record.name, now: now, settings: settings) {
            deliverPush(index, pending, at: now, &out)
        } else if let next = pushRouter.nextSlot(app: record.name, now: now, settings: settings), next > now {
            arm(index, .pushSlot, at: next, &out)
        }
    }

    /// Why a push due now must wait for memory, or nil when it may wake the app: only a wake
    /// that thaws or launches the app waits (an app awake already takes the push as it is), by
    /// the fetch rule (`memoryRefusesWake`).
    func pushWakeRefused(_ index: Int) -> String? {
        switch records[index].state {
        case .suspended, .notRunning: memoryRefusesWake(index)
        case .background, .inactive, .active: nil
        }
    }

    /// A push whose wake memory cannot take now (`pushWakeRefused`) is held, and tried again
    /// after `PushRouter.memoryRetry`, or at the next slot when that comes later; a try already
    /// planned (for a push held before) stays. A push is journaled when it is held, not at each
    /// try that finds memory still short (`explain` says why it waits).
    mutating func holdPushForMemory(
        _ index: Int, because why: String, journaled: Bool = true, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        let retry = now + PushRouter.memoryRetry
        let slot = pushRouter.nextSlot(app: records[index].name, now: now, settings: records[index].settings.push)
        let planned = records[index].timers[.pushSlot].flatMap { $0 > now ? $0 : nil }
        let at = planned ?? max(retry, slot ?? retry)
        if journaled {
            decide(
                index, "\(Self.pushHeldPrefix)\(why); tried again in \(DurationFormat.roundedUp(at - now)).", at: now,
                &out)
        }
        if records[index].timers[.pushSlot] != at {
            arm(index, .pushSlot, at: at, &out)
        }
    }

    /// How a push held for memory is journaled, before the reason.
    static let pushHeldPrefix = "Push held for memory: "

    /// Hands a push to the app: a foreground app just gets it; a background or suspended one
    /// (thawed) gets it with a push window; a not-running one is launched passively first.
    mutating func deliverPush(
        _ index: Int, _ pending: PushRouter.Pending, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        if let id = pending.id {
            records[index].deliveredPushIDs.insert(id)
        }
        let name = records[index].name
        if records[index].isInForeground {
            out.append(
                .deliver(app: name, message: .pushPayload(payload: pending.payload, id: pending.id, window: .zero)))
            return
        }
        chargeWake(index)
        switch records[index].state {
        case .notRunning:
            launchPassively(index, reason: .push, because: "launched in the background for a push", at: now, &out)
        case .suspended:
            thaw(index, because: "woken for a push", at: now, &out)
        case .background:
            cancel(index, .backgroundGrace, &out)
        case .inactive, .active:
            break
        }
        let window = records[index].settings.push.window
        records[index].pushWindowOpen = true
        out.append(.deliver(app: name, message: .pushPayload(payload: pending.payload, id: pending.id, window: window)))
        arm(index, .pushWindow, at: now + window, &out)
        startStallCount(index, .push, &out)
        updateScore(index, force: false, &out)
    }

    /// `complete-push RESULT`: closes the push window; the app is suspended at once if nothing
    /// else keeps it awake.
    mutating func completePush(
        _ app: String, result: CompletionResult, at now: Instant, _ out: inout [LifecycleAction]
    ) throws(LifecycleError) {
        let index = try runningAppIndex(app, for: "complete a push")
        guard records[index].pushWindowOpen else {
            throw LifecycleError(.conflict, "App \"\(app)\" has no push window open, so it cannot complete a push.")
        }
        records[index].pushWindowOpen = false
        cancel(index, .pushWindow, &out)
        closeWindow(index, because: "its push completed", at: now, &out)
    }

    /// The push window reached its end: where the app's stall is counted, it is measured first
    /// (`countStall`); otherwise the window ends.
    mutating func pushWindowFired(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        guard records[index].pushWindowOpen else { return }
        if awaitStall(index, .push, at: now, &out) { return }
        pushWindowEnded(index, at: now, &out)
    }

    /// The push window ended without `complete-push`: the app is terminated (`pushTimeout`).
    mutating func pushWindowEnded(_ index: Int, at now: Instant, _ out: inout [LifecycleAction]) {
        records[index].pushWindowOpen = false
        if records[index].isInForeground {
            decide(index, "Push window ended without completion while in the foreground.", at: now, &out)
        } else {
            terminate(index, reason: .pushTimeout, because: "push window ended without completion", at: now, &out)
        }
    }

    // MARK: Stall in a window

    /// A window just opened (or, for an accessory event, started again): its stall count starts
    /// from the group's stall total now, which the runtime is asked for.
    mutating func startStallCount(_ index: Int, _ window: BackgroundWindow, _ out: inout [LifecycleAction]) {
        records[index][keyPath: window.stall] = WindowStall()
        out.append(.measureStall(app: records[index].name, launch: records[index].launch))
    }

    /// A window reached its end: when its stall is counted and the app is in the background,
    /// the runtime is asked for the stall total and the window waits for it, at most
    /// `WindowStall.answerWait` (a measurement that never comes, across a restart, ends it);
    /// returns whether it waits.
    mutating func awaitStall(
        _ index: Int, _ window: BackgroundWindow, at now: Instant, _ out: inout [LifecycleAction]
    ) -> Bool {
        guard !records[index].isInForeground, let count = records[index][keyPath: window.stall],
            count.baseline != nil, !count.awaitingEnd
        else { return false }
        records[index][keyPath: window.stall]?.awaitingEnd = true
        out.append(.measureStall(app: records[index].name, launch: records[index].launch))
        arm(index, window.timer, at: now + WindowStall.answerWait, &out)
        return true
    }

    /// The group's stall in total (waiting on memory or for a CPU), measured: the start of an
    /// open window's count, or, for a window at its end, the stall in it added to the window (up
    /// to one more window in all), or the window ends when there is none to add. A stall the
    /// runtime cannot measure (nil) ends the count: the window lasts its length. Every open
    /// window, fetch, push or accessory, is counted alike.
    mutating func stallMeasured(
        _ app: String, launch: Int, total: Duration?, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard let index = indexByName[app], records[index].launch == launch, records[index].isRunning else { return }
        // Each window is looked at once the one before is counted: an end that terminated the app
        // closed every window.
        for window in BackgroundWindow.allCases
        where window.isOpen(in: records[index]) && records[index][keyPath: window.stall] != nil {
            countStall(index, window, total: total, at: now, &out)
        }
    }

    /// One window's share of `stallMeasured`.
    mutating func countStall(
        _ index: Int, _ window: BackgroundWindow, total: Duration?, at now: Instant, _ out: inout [LifecycleAction]
    ) {
        guard var count = records[index][keyPath: window.stall] else { return }
        guard let total else {
            records[index][keyPath: window.stall] = nil
            if count.awaitingEnd { endWindow(index, window, at: now, &out) }
            return
        }
        guard count.baseline != nil else {
            count.baseline = total
            records[index][keyPath: window.stall] = count
            return
        }
        guard count.awaitingEnd else { return }
        count.awaitingEnd = false
        let length = window.length(records[index].settings)
        let extra = records[index].isInForeground ? .zero : count.credit(total: total, window: length)
        let stalled = DurationFormat.string(count.stalled(total: total))
        guard extra > .zero else {
            records[index][keyPath: window.stall] = count
            if count.credited > .zero && !records[index].isInForeground {
                decide(
                    index,
                    "\(window.sentenceName) not extended further: the app could not run for \(stalled) of it, waiting on memory or for a CPU, and at most \(DurationFormat.string(length)) is added.",
                    at: now, &out)
            }
            endWindow(index, window, at: now, &out)
            return
        }
        count.credited += extra
        records[index][keyPath: window.stall] = count
        decide(
            index,
            "\(window.sentenceName) extended by \(DurationFormat.string(extra)): the app could not run for \(stalled) of it, waiting on memory or for a CPU.",
            at: now, &out)
        arm(index, window.timer, at: now + extra, &out)
    }

    /// Ends a window without completion, its timer with it.
    mutating func endWindow(_ index: Int, _ window: BackgroundWindow, at now: Instant, _ out: inout [LifecycleAction]) {
        cancel(index, window.timer, &out)
        switch window {
        case .fetch: fetchWindowEnded(index, at: now, &out)
        case .push: pushWindowEnded(index, at: now, &out)
        case .accessory: accessoryWindowEnded(index, at: now, &out)
        }
    }

    /// `register-push`: the app's current device token.
    mutating func registerPush(_ app: String, _ out: inout [LifecycleAction]) throws(LifecycleError) {
        let index = try appIndex(app)
        out.append(.reply(.deviceToken(pushRouter.token(for: records[index].name))))
    }
}
