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
                    daemon.saveCheckpoint(deferrable: false)
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

    /// Handles one event and every event its actions lead to, one call to the core each
    /// (`Lifecycle.take`, whose answer is carried out and journaled); the checkpoint is saved once the
    /// job that led to it is done (`saveCheckpoint`), so that the footprints measured before
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
        // One call to the core per event: its actions, and what the journal keeps of it.
        let handled: HandledEvent
        do {
            handled = try lifecycle.take(event, at: clock.now())
        } catch {
            return .failure(error)
        }
        journal.beginEvent()
        journal.recordInputs(of: handled, wallMillis: clock.wallMillis(clock.now()), logger: logger)
        metrics.count(accepted: event)
        var followUps: [LifecycleEvent] = []
        let reply = await execute(handled.actions, followUps: &followUps)
        var changed = DaemonJournal.changesCheckpoint(handled.actions, of: event)
        while !followUps.isEmpty && phase.isRunning {
            let next = followUps.removeFirst()
            do {
                let more = try lifecycle.take(next, at: clock.now())
                journal.recordInputs(of: more, wallMillis: clock.wallMillis(clock.now()), logger: logger)
                changed = changed || DaemonJournal.changesCheckpoint(more.actions, of: event)
                await execute(more.actions, followUps: &followUps)
            } catch {
                logger.debug("The core refused \(next): \(error.message)")
            }
        }
        journal.flush(logger: logger)
        if changed { journal.checkpointChanged = true }
        if !event.isMeasurement { memoryWatch.plan.eventHandled(at: clock.now(), quiet: deviceIsQuiet) }
        return .success(reply)
    }

    /// Journals the policy that comes into force now, read from its file, for `export`.
    func recordPolicyInForce() {
        journal.recordPolicy(
            path: options.policyPath, fromFile: policyFromFile, wallMillis: clock.wallMillis(clock.now()),
            logger: logger)
    }

    /// Appends an entry that is not a core record (a message, a status, a daemon record) and
    /// publishes it: at once outside an event, else with the event's other entries.
    func record(app: String, _ event: AppEvent) {
        journal.record(app: app, event, wallMillis: clock.wallMillis(clock.now()), logger: logger)
    }
}
