import WardenCore

extension Simulator {
    /// Turns a step's verb into core events, or simulated-runtime changes.
    mutating func perform(_ verb: ScenarioVerb, what: String) -> Result<[LifecycleAction], LifecycleError> {
        switch verb {
        case .event(let event):
            var event = event
            if case .footprint(let app, let bytes, let measured, let inRAM) = event, let index = appIndex[app] {
                if apps[index].launch != nil {
                    bytesInMemory += bytes - apps[index].footprint
                    // A footprint that shrinks below what is swapped takes it along; a measured
                    // swapped part replaces it, taking of RAM what the step says, else what the
                    // scenario's swap keeps of it; the core is told the same.
                    let swapped = min(max(0, measured ?? apps[index].swapped), bytes)
                    let held = min(
                        max(0, inRAM ?? (measured == nil ? apps[index].swappedInRAM : swappedInRAM(swapped))), swapped)
                    setSwapped(index, swapped, inRAM: held)
                    if measured != nil {
                        event = .footprint(app: app, bytes: bytes, swapped: swapped, swappedInRAM: held)
                    }
                    memoryChanged = true
                }
                apps[index].footprint = bytes
            }
            let result = dispatch(event, what: what)
            if case .beginTask(let app, let name) = event, case .success(let actions) = result,
                let index = index(of: app)
            {
                for case .reply(.taskBegun(let id, _)) in actions {
                    apps[index].tasks.append((id, name))
                }
            }
            return result
        case .endTask(let app, let reference):
            let taskID: Int
            switch reference {
            case .id(let id):
                taskID = id
            case .name(let name):
                guard let index = index(of: app), let task = apps[index].tasks.first(where: { $0.name == name })
                else {
                    return refuse(what, .noOpenTask(named: name, of: app))
                }
                taskID = task.id
            }
            let result = dispatch(.endTask(app: app, taskID: taskID), what: what)
            if case .success = result, let index = index(of: app) {
                // An ended task no longer answers to its name.
                apps[index].tasks.removeAll { $0.id == taskID }
            }
            return result
        case .crash(let app), .exit(let app):
            let crashed: Bool
            if case .crash = verb { crashed = true } else { crashed = false }
            guard let index = appIndex[app], let launch = apps[index].launch else {
                return refuse(what, .notRunning(app, toDo: crashed ? "crash" : "exit"))
            }
            processEnded(index)
            let end: ProcessEnd = crashed ? .crashed(description: "crashed on request") : .exited(code: 0)
            return dispatch(.processExited(app: app, launch: launch, end: end), what: what)
        case .scan(let app, let outcome):
            if let index = appIndex[app] { apps[index].scanOutcome = outcome }
            return .success([])
        case .stall(let percent):
            stallPercent = percent
            memoryChanged = true
            return .success([])
        case .cpu(let app, let percent):
            if let index = appIndex[app] { apps[index].cpuTime.setPercent(percent, at: now.sinceOrigin) }
            return .success([])
        }
    }

    /// Hands one event to the core and carries out the actions. `what` names a step for refusals;
    /// nil for inputs of the simulated runtime.
    mutating func dispatch(_ event: LifecycleEvent, what: String?) -> Result<[LifecycleAction], LifecycleError> {
        eventCount += 1
        let actions: [LifecycleAction]
        do throws(LifecycleError) {
            actions = try lifecycle.handle(event, at: now)
        } catch {
            return refuse(what ?? TraceText.event(event), error)
        }
        if isTracing, what == nil { trace.append(TraceEntry(time: now, kind: .event(event))) }
        // Each action is handed on in place rather than copied out of the array.
        actions.withUnsafeBufferPointer { buffer in
            for position in buffer.indices {
                carryOut(buffer[position])
            }
        }
        return .success(actions)
    }

    mutating func refuse(_ what: String, _ error: LifecycleError) -> Result<[LifecycleAction], LifecycleError> {
        record.refusals.append(SimulationRecord.Refusal(time: now, what: what, error: error))
        if isTracing { trace.append(TraceEntry(time: now, kind: .refused(what: what, error: error))) }
        return .failure(error)
    }

    /// Handles the events the actions produced, then, under the memory model, a memory sample
    /// after every change of what is in memory, until nothing changes any more.
    mutating func drain() {
        var next = 0
        while true {
            while next < pending.count {
                let event = pending[next]
                next += 1
                _ = dispatch(event, what: nil)
            }
            pending.removeAll(keepingCapacity: true)
            next = 0
            guard memoryChanged, let memory = scenario.memory else {
                memoryChanged = false
                return
            }
            memoryChanged = false
            _ = dispatch(
                .memorySample(available: availableMemory ?? memory, total: memory, swap: swapFigures), what: nil)
        }
    }

    /// Carries out one action of the core in simulation.
    mutating func carryOut(_ action: LifecycleAction) {
        if isTracing { trace.append(TraceEntry(time: now, kind: .action(action))) }
        switch action {
        case .spawn(let app, let launch, let reason, let restore):
            record.launches.append(
                SimulationRecord.Launch(time: now, app: app, launch: launch, reason: reason, restore: restore))
            // An app a policy reload added is simulated from its first launch, with default facts.
            let index = index(of: app) ?? addApp(app)
            if apps[index].launch != nil { processEnded(index) }
            apps[index].launch = launch
            apps[index].tasks = []
            apps[index].isFrozen = false
            apps[index].cpuTime.restart(at: now.sinceOrigin)
            apps[index].runsCode = false
            apps[index].heldMessages = []
            bytesInMemory += apps[index].footprint
            memoryChanged = true
            // The process runs `launch_time` after every spawn, passive ones included.
            guard let delay = apps[index].facts.launchTime else { return }
            if delay == .zero {
                apps[index].runsCode = true
                pending.append(contentsOf: runningEvents(index, launch: launch))
            } else {
                queue.schedule(.launched(app: index, launch: launch), at: now + delay)
            }
        case .freeze(let app, let guardPaths):
            guard let index = index(of: app) else { return }
            if let held = guardPaths.first(where: { apps[index].facts.holdsPaths.contains($0.resource) }) {
                // One of its processes has the resource's path open: not frozen, reported instead.
                pending.append(.heldAtSuspension(app: app, resource: held.resource))
            } else {
                apps[index].isFrozen = true
                apps[index].cpuTime.setRunning(false, at: now.sinceOrigin)
            }
        case .thaw(let app):
            guard let index = index(of: app) else { return }
            apps[index].isFrozen = false
            if apps[index].launch != nil { apps[index].cpuTime.setRunning(true, at: now.sinceOrigin) }
            // An app with `swap_in` brings back what compression pushed out, stalled meanwhile.
            if apps[index].facts.swapIn > .zero, apps[index].swapped > 0 {
                apps[index].stall.begin(apps[index].facts.swapIn, at: now)
                setSwapped(index, 0, inRAM: 0)
                memoryChanged = true
            }
        case .measureCPU(let app, let launch):
            guard let index = index(of: app), apps[index].launch == launch else { return }
            pending.append(
                .cpuMeasured(app: app, launch: launch, usage: apps[index].cpuTime.total(at: now.sinceOrigin)))
        case .measureStall(let app, let launch):
            guard let index = index(of: app), apps[index].launch == launch else { return }
            pending.append(.stallMeasured(app: app, launch: launch, total: apps[index].stall.total(at: now)))
        case .compress(let app, let launch):
            // What is left of swap takes what is in RAM of the frozen app's footprint.
            guard let index = index(of: app), apps[index].launch == launch, let swap = scenario.swap else { return }
            let moved = max(0, min(swap - bytesSwapped, apps[index].footprint - apps[index].swapped))
            let swapped = apps[index].swapped + moved
            setSwapped(index, swapped, inRAM: apps[index].swappedInRAM + swappedInRAM(moved))
            memoryChanged = memoryChanged || moved > 0
            pending.append(
                .compressed(
                    app: app, launch: launch, swappedBytes: swapped, swappedInRAM: apps[index].swappedInRAM))
        case .terminate(let app, _), .kill(let app, _):
            // SIGTERM and SIGKILL both end a simulated process at once, by that signal; an app
            // that ignores SIGTERM runs on until it is killed.
            guard let index = index(of: app), let launch = apps[index].launch else { return }
            if case .terminate = action, apps[index].facts.onTerminate == .ignore { return }
            processEnded(index)
            let signal: Int32 = if case .kill = action { 9 } else { 15 }
            pending.append(.processExited(app: app, launch: launch, end: .exited(code: 128 + signal)))
        case .deliver(let app, let message):
            switch message {
            case .fetchStart: record.windows.append(SimulationRecord.Window(time: now, app: app, kind: .fetch))
            case .pushPayload(_, _, let window) where window > .zero:
                record.windows.append(SimulationRecord.Window(time: now, app: app, kind: .push))
            case .accessoryEvent(_, _, let window) where window > .zero:
                record.windows.append(SimulationRecord.Window(time: now, app: app, kind: .accessory))
            default: break
            }
            guard let index = index(of: app) else { return }
            deliver(message, to: index)
        case .armTimer(let id, let deadline):
            let sequence = queue.schedule(.timer(id), at: deadline)
            if let slot = timerSlot(id) {
                armedSequences[slot] = sequence
            } else {
                armed[id] = sequence
            }
        case .cancelTimer(let id):
            if let slot = timerSlot(id) {
                armedSequences[slot] = .max
            } else {
                armed[id] = nil
            }
        case .publishStatus(let app, let status):
            notifier.publish(app: app, status: status)
            record.publications.append(SimulationRecord.Publication(time: now, app: app, status: status))
        case .scan(let app):
            let outcome = index(of: app).map { apps[$0].scanOutcome } ?? .error
            pending.append(.scanResult(app: app, outcome: outcome))
        case .journal(let journal):
            if case .memoryKill(let report) = journal.kind {
                record.memoryKills.append(SimulationRecord.MemoryKill(time: now, app: journal.app, report: report))
            } else if case .system(.pressureChanged(_, let level, _)) = journal.kind {
                record.levelChanges.append(SimulationRecord.LevelChange(time: now, level: level))
            }
            if case .analytics(let event) = journal.kind {
                if case .appTerminated(let reason) = event {
                    record.terminations.append(
                        SimulationRecord.Termination(time: now, app: journal.app, reason: reason))
                } else {
                    record.analytics.append(SimulationRecord.Analytics(time: now, app: journal.app, event: event))
                }
            }
        case .reply, .setOOMScore, .setMemoryLimits, .setCPU, .deleteRestorationState, .runHook:
            break
        }
    }

    /// What a simulated app does with a message on its event stream (`AppFacts.reactions`).
    /// A process that does not run yet keeps the message and answers it once it runs, so a
    /// window's answer counts from then; one that never runs answers nothing.
    mutating func deliver(_ message: AppMessage, to index: Int) {
        guard let launch = apps[index].launch else { return }
        guard apps[index].runsCode else {
            apps[index].heldMessages.append(message)
            return
        }
        // A stalled app answers once the stall is over.
        let stalled = apps[index].stall.remaining(at: now)
        for case .call(let call, let reaction) in apps[index].facts.reactions(to: message, of: apps[index].name) {
            let delay = reaction + stalled
            if delay == .zero {
                pending.append(call)
            } else {
                queue.schedule(.call(app: index, launch: launch, event: call), at: now + delay)
            }
            // An ended task no longer answers to its name.
            if case .endTask(_, let id) = call { apps[index].tasks.removeAll { $0.id == id } }
        }
    }

    /// What the simulated runtime and app report once the app's process runs: the launch fact,
    /// then, from a `readiness = "notify"` app, its own `ready` call.
    func runningEvents(_ index: Int, launch: Int) -> [LifecycleEvent] {
        let name = apps[index].name
        guard lifecycle.policy.app(named: name)?.readiness == .notify else {
            return [.launched(app: name, launch: launch)]
        }
        return [.launched(app: name, launch: launch), .ready(app: name)]
    }

    /// Simulates app `app` from now on, with the scenario's facts for it (the defaults, for an
    /// app the scenario does not name); returns its index.
    mutating func addApp(_ app: String) -> Int {
        let facts = scenario.facts(of: app)
        appIndex[app] = apps.count
        apps.append(SimulatedApp(name: app, facts: facts, footprint: facts.footprint ?? 0))
        armedSequences += Array(repeating: .max, count: Self.timerKindCount)
        return apps.count - 1
    }

    /// The index of the simulated app named `app`, through a one-entry cache of `appIndex`.
    mutating func index(of app: String) -> Int? {
        if let last = lastLookup, last.app == app { return last.index }
        guard let index = appIndex[app] else { return nil }
        lastLookup = (app, index)
        return index
    }

    /// Where `armedSequences` keeps the live arming of `id`; nil for an app the simulator does not know.
    mutating func timerSlot(_ id: TimerID) -> Int? {
        guard let index = index(of: id.app) else { return nil }
        let ordinal: Int
        switch id.kind {
        case .backgroundGrace: ordinal = 0
        case .taskExpirationWarning: ordinal = 1
        case .taskBudget: ordinal = 2
        case .fetchWindow: ordinal = 3
        case .pushWindow: ordinal = 4
        case .fetchWake: ordinal = 5
        case .pushSlot: ordinal = 6
        case .launchTimeout: ordinal = 7
        case .terminationGrace: ordinal = 8
        case .watchdog: ordinal = 9
        case .cpuBudget: ordinal = 10
        case .activityLimit: ordinal = 11
        case .accessoryWindow: ordinal = 12
        }
        return index * Self.timerKindCount + ordinal
    }

    /// How many kinds of timer an app has.
    static let timerKindCount = TimerID.Kind.allCases.count

    /// The app's process is gone: it leaves memory.
    mutating func processEnded(_ index: Int) {
        guard apps[index].launch != nil else { return }
        apps[index].launch = nil
        apps[index].runsCode = false
        apps[index].heldMessages = []
        apps[index].tasks = []
        apps[index].isFrozen = false
        apps[index].cpuTime.setRunning(false, at: now.sinceOrigin)
        bytesInMemory -= apps[index].footprint
        setSwapped(index, 0, inRAM: 0)
        apps[index].stall = StallCount()
        memoryChanged = true
    }

    /// Something in the queue is due now.
    mutating func fire(_ entry: DeadlineQueue<Occurrence>.Entry) {
        switch entry.element {
        case .timer(let id):
            if let slot = timerSlot(id) {
                guard armedSequences[slot] == entry.sequence else { return }
                armedSequences[slot] = .max
            } else {
                guard armed[id] == entry.sequence else { return }
                armed[id] = nil
            }
            _ = dispatch(.timerFired(id), what: nil)
        case .launched(let index, let launch):
            guard apps[index].launch == launch else { return }
            apps[index].runsCode = true
            for event in runningEvents(index, launch: launch) {
                _ = dispatch(event, what: nil)
            }
            // What reached the app before it ran is answered from now.
            let held = apps[index].heldMessages
            apps[index].heldMessages = []
            for message in held where apps[index].launch == launch {
                deliver(message, to: index)
            }
        case .call(let index, let launch, let event):
            guard apps[index].launch == launch else { return }
            _ = dispatch(event, what: nil)
        }
        drain()
    }
}
