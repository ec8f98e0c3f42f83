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
                    daemon.saveCheckpointIfDue()
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
        let actions: [LifecycleAction]
        do {
            actions = try lifecycle.handle(event, at: now())
        } catch {
            return .failure(error)
        }
        journal.beginEvent()
        metrics.count(accepted: event)
        var followUps: [LifecycleEvent] = []
        let reply = await execute(actions, followUps: &followUps)
        var changed = !actions.isEmpty
        while !followUps.isEmpty && phase.isRunning {
            let next = followUps.removeFirst()
            do {
                let more = try lifecycle.handle(next, at: now())
                changed = changed || !more.isEmpty
                await execute(more, followUps: &followUps)
            } catch {
                logger.debug("The core refused \(next): \(error.message)")
            }
        }
        journal.flush(logger: logger)
        if changed || !Self.isMeasurement(event) {
            journal.checkpointDue = true
        }
        memoryWatchAfterEvent(event)
        return .success(reply)
    }

    /// Whether the event is a measurement, which changes nothing worth saving when the core
    /// takes no action on it.
    static func isMeasurement(_ event: LifecycleEvent) -> Bool {
        switch event {
        case .footprint, .memorySample: true
        default: false
        }
    }

    /// Appends an entry that is not a core record (a message, a status, a daemon record) and
    /// publishes it: at once outside an event, else with the event's other entries.
    func record(app: String, _ event: AppEvent) {
        journal.append(NewJournalEntry(app: app, event: event, wallTimeMillis: wallMillis(now())), logger: logger)
    }
}
