import WardenCore
import WardenScenario

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
                    apps[index].app.taskBegun(id, named: name)
                }
            }
            return result
        case .endTask(let app, let reference):
            let taskID: Int
            switch SimulatedApp.taskID(reference, of: app, in: index(of: app).map { apps[$0].app }) {
            case .success(let id): taskID = id
            case .failure(let error): return refuse(what, error)
            }
            let result = dispatch(.endTask(app: app, taskID: taskID), what: what)
            if case .success = result, let index = index(of: app) {
                apps[index].app.taskEnded(taskID)
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
            let run = apps[index].app.spawned(launch, readiness: lifecycle.policy.app(named: app)?.readiness, at: now)
            apps[index].isFrozen = false
            apps[index].cpuTime.restart(at: now.sinceOrigin)
            bytesInMemory += apps[index].footprint
            memoryChanged = true
            play(run, of: index)
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
            play(apps[index].app.receive(message, at: now, stalledFor: apps[index].stall.remaining(at: now)), of: index)
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

    /// Carries out what simulated app `index` will do (`SimulatedApp.Doing`): what is due now
    /// goes to `pending`, the rest to the queue. A process that runs at once is reported running
    /// (`launched`) before the calls the app makes as it begins.
    mutating func play(_ doings: [SimulatedApp.Doing], of index: Int) {
        for doing in doings {
            guard doing.time == now else {
                queue.schedule(.app(index, doing), at: doing.time)
                continue
            }
            switch doing.kind {
            case .call(let event):
                pending.append(event)
            case .run:
                guard let calls = apps[index].app.beginsToRun(doing) else { continue }
                pending.append(.launched(app: apps[index].name, launch: doing.launch))
                pending.append(contentsOf: calls)
                answerHeldMessages(of: index)
            }
        }
    }

    /// Lets simulated app `index`, once its process runs, answer what reached it before, from now.
    mutating func answerHeldMessages(of index: Int) {
        play(apps[index].app.answerHeldMessages(at: now, stalledFor: apps[index].stall.remaining(at: now)), of: index)
    }

    /// Simulates app `app` from now on, with the scenario's facts for it (the defaults, for an
    /// app the scenario does not name); returns its index.
    mutating func addApp(_ app: String) -> Int {
        appIndex[app] = apps.count
        apps.append(SimulatedGroup(name: app, facts: scenario.facts(of: app)))
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
        apps[index].app.processEnded()
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
        case .app(let index, let doing):
            switch doing.kind {
            case .run:
                // The runtime reports the process running, then the app makes its first calls.
                guard let calls = apps[index].app.beginsToRun(doing) else { return }
                _ = dispatch(.launched(app: apps[index].name, launch: doing.launch), what: nil)
                for call in calls {
                    _ = dispatch(call, what: nil)
                }
                answerHeldMessages(of: index)
            case .call(let event):
                guard apps[index].app.isCurrent(doing) else { return }
                _ = dispatch(event, what: nil)
            }
        }
        drain()
    }
}
