import FoundationEssentials
import Logging
import WardenAPI
public import WardenCore

/// Handing events to the core, and the ways in: every caller posts a job and waits for the loop
/// to carry it out.
extension WardenDaemon {
    /// Applies an operator verb, an app call or a runtime fact now (after the jobs queued before
    /// it); returns the core's reply, if the event has one.
    ///
    /// - Throws: The core's refusal, or `unavailable` once the daemon is stopping.
    public nonisolated func perform(_ event: LifecycleEvent) async throws(LifecycleError) -> Reply? {
        let result = await withCheckedContinuation {
            (answer: CheckedContinuation<Result<Reply?, LifecycleError>, Never>) in
            if !inbox.post(.event(event, answer: answer)) {
                answer.resume(returning: .failure(Self.stoppingError))
            }
        }
        return try result.get()
    }

    /// Runs `body` on the daemon's loop between two jobs and returns what it returns; nil once
    /// the daemon has stopped taking jobs.
    public nonisolated func onLoop<Value: Sendable>(
        _ body: @escaping @Sendable (isolated WardenDaemon) async -> Value
    ) async -> Value? {
        await withCheckedContinuation { (answer: CheckedContinuation<Value?, Never>) in
            let posted = inbox.post(
                .work { daemon in
                    let value = await body(daemon)
                    daemon.saveCheckpointIfDue(deferrable: false)
                    answer.resume(returning: value)
                })
            if !posted { answer.resume(returning: nil) }
        }
    }

    /// Returns once every job posted so far, and every job those led to, has been carried out:
    /// the daemon has nothing left to do until its next deadline or input.
    public nonisolated func whenIdle() async {
        await inbox.whenIdle()
    }

    /// How many jobs are queued or being carried out (for tests that must know a job is
    /// waiting behind one that is held).
    public nonisolated var pendingJobs: Int {
        inbox.pendingJobs
    }

    /// Wakes the daemon as its alarm would: the timers and the memory watch due by now run.
    /// A test that drives virtual time calls it at each deadline the alarm was set to.
    public nonisolated func wake() {
        inbox.post(.wake)
    }

    /// Handles one event and every event its actions lead to; the checkpoint is saved once the
    /// job that led to it is done (`saveCheckpointIfDue`), so that the footprints measured before
    /// a memory sample do not each save it ahead of the kill that sample may bring.
    func process(_ event: LifecycleEvent) async -> Result<Reply?, LifecycleError> {
        guard phase.isRunning else { return .failure(Self.stoppingError) }
        var event = event
        // The compressor, beside the loop, cannot read the swap devices: what its result takes
        // of RAM is measured here.
        if case .compressed(let app, let launch, let swapped, nil) = event {
            event = .compressed(
                app: app, launch: launch, swappedBytes: swapped, swappedInRAM: parts.memory.swappedInRAM(swapped))
        }
        let actions: [LifecycleAction]
        let ownEnd = endsOnItsOwn(event)
        let candidates = lifecycle.killCandidates(before: event)
        do {
            actions = try lifecycle.handle(event, at: now())
        } catch {
            return .failure(error)
        }
        journal.beginEvent()
        recordInputs(of: event, actions: actions, endsOnItsOwn: ownEnd, candidates: candidates)
        metrics.count(accepted: event)
        var followUps: [LifecycleEvent] = []
        let reply = await execute(actions, followUps: &followUps)
        var changed = Self.changesCheckpoint(actions, of: event)
        while !followUps.isEmpty && phase.isRunning {
            let next = followUps.removeFirst()
            do {
                let nextOwnEnd = endsOnItsOwn(next)
                let nextCandidates = lifecycle.killCandidates(before: next)
                let more = try lifecycle.handle(next, at: now())
                recordInputs(of: next, actions: more, endsOnItsOwn: nextOwnEnd, candidates: nextCandidates)
                changed = changed || Self.changesCheckpoint(more, of: event)
                await execute(more, followUps: &followUps)
            } catch {
                logger.debug("The core refused \(next): \(error.message)")
            }
        }
        journal.flush(logger: logger)
        if changed { journal.checkpointDue = true }
        if !event.isMeasurement { memoryWatch.plan.eventHandled(at: now(), quiet: deviceIsQuiet) }
        return .success(reply)
    }

    /// Whether `event` ends an app's process on its own, before the core has seen it.
    private func endsOnItsOwn(_ event: LifecycleEvent) -> Bool {
        guard case .processExited(let app, let launch, _) = event else { return false }
        return lifecycle.endsOnItsOwn(app, launch: launch)
    }

    /// Journals what a replay of this moment needs (`JournalInput.inputs`), before the records
    /// of what the core did with it.
    private func recordInputs(
        of event: LifecycleEvent, actions: [LifecycleAction], endsOnItsOwn: Bool, candidates: [KillCandidate]
    ) {
        var event = event
        // A device token is the daemon's own random number: a replay knows the app instead.
        if case .push(.token(let token), let payload, let id) = event,
            case .app(let app) = lifecycle.deviceTokenOwner(token)
        {
            event = .push(target: .app(app), payload: payload, id: id)
        }
        // A replay keeps each footprint until a step changes it: only changes are journaled.
        let changed = candidates.filter { journal.footprintsJournaled[$0.app] != JournalInput.footprintStep(of: $0) }
        let inputs = JournalInput.inputs(
            for: event, actions: actions, endsOnItsOwn: endsOnItsOwn, candidates: changed)
        if !inputs.isEmpty {
            for candidate in changed {
                journal.footprintsJournaled[candidate.app] = JournalInput.footprintStep(of: candidate)
            }
            if case .footprint(let app, let bytes, let swapped, let inRAM) = event {
                journal.footprintsJournaled[app] =
                    swapped.map {
                        JournalInput.footprintStep(app: app, footprint: bytes, swapped: $0, inRAM: inRAM ?? $0)
                    } ?? JournalInput.stepText(of: event)
            }
        }
        for input in inputs {
            record(app: event.app ?? JournalEntry.systemApp, .input(input))
        }
    }

    /// Journals the policy that comes into force now, read from its file, for `export`.
    func recordPolicyInForce() {
        // An export starts at a policy: the footprints are journaled afresh under it.
        journal.footprintsJournaled = [:]
        let path = options.policyPath
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            // A daemon given its policy in code has no file to journal, unless one was put there.
            if policyFromFile || FileManager.default.fileExists(atPath: path) {
                logger.warning("Could not read the policy \"\(path)\" to journal it; an export will lack it.")
            }
            return
        }
        record(app: JournalEntry.systemApp, .input(.policy(path: path, text: text)))
    }

    /// Whether the core's answer to a job that began with `event` changes what the checkpoint
    /// must hold. Every event but a query and a measurement does. A query (`time-remaining`) does
    /// only when the core did more than answer it: a shell app may ask in a loop, and with a
    /// thousand apps each save costs the daemon milliseconds and a sync of its disk. A
    /// measurement (a footprint, a memory sample) does only when it starts, stops, freezes or
    /// thaws a process: its level, footprints and
    /// warnings are measured again after a restart, and saving them every 10 ms near a threshold
    /// would stand in the way of the kill the next sample brings.
    static func changesCheckpoint(_ actions: [LifecycleAction], of event: LifecycleEvent) -> Bool {
        if event.isQuery {
            return actions.contains { action in
                if case .reply = action { false } else { true }
            }
        }
        guard event.isMeasurement else { return true }
        return actions.contains { action in
            switch action {
            case .spawn, .freeze, .thaw, .terminate, .kill: true
            default: false
            }
        }
    }

    /// Appends an entry that is not a core record (a message, a status, a daemon record) and
    /// publishes it: at once outside an event, else with the event's other entries.
    func record(app: String, _ event: AppEvent) {
        journal.append(NewJournalEntry(app: app, event: event, wallTimeMillis: wallMillis(now())), logger: logger)
    }
}
