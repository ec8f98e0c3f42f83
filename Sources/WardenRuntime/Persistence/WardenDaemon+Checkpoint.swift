import Logging
import WardenCore

/// Saving the model after every job that changed it, for a restarted daemon to continue from.
extension WardenDaemon {
    /// Saves the checkpoint when an event changed the model since it was last saved: after each
    /// job, and before a caller hears the answer to its event. While memory is at `warning` or
    /// `critical` the loop's next job may be the sample that kills, so a job no caller waits for
    /// (`deferrable`) saves it at most every `checkpointSpacingUnderPressure`; the watch's
    /// samples, every 10 ms then, save it soon after.
    func saveCheckpointIfDue(deferrable: Bool = true) {
        guard journal.checkpointDue else { return }
        if deferrable, lifecycle.memoryLevel != .normal, let last = journal.lastCheckpointSave,
            parts.clock.elapsed() - last < Self.checkpointSpacingUnderPressure
        {
            return
        }
        saveCheckpoint()
    }

    /// How often, at most, a job no caller waits for saves the checkpoint under memory pressure.
    static let checkpointSpacingUnderPressure = Duration.milliseconds(250)

    /// Saves the core's checkpoint and the running apps' records, in one row: the one source
    /// a restarted daemon re-adopts from.
    func saveCheckpoint() {
        journal.checkpointDue = false
        journal.lastCheckpointSave = parts.clock.elapsed()
        let now = now()
        let checkpoint = WardenCheckpoint(
            lifecycle: lifecycle.checkpoint(at: now),
            running: processes.table.running.values.map(\.record).sorted { $0.app < $1.app },
            recentKills: history.recentKills.isEmpty ? nil : history.recentKills, bootTime: parts.clock.bootTime())
        do {
            // Only the records that changed are encoded again and written: with a thousand
            // apps, encoding them all cost tens of milliseconds per save, and writing them all
            // about 600 KB.
            let text = try journal.checkpointEncoder.encode(checkpoint)
            try parts.journal.saveCheckpoint(text, wallTimeMillis: wallMillis(now))
            journal.checkpointEncoder.saved()
            if journal.checkpointFailing {
                journal.checkpointFailing = false
                logger.notice("The checkpoint is saved again.")
            }
        } catch {
            // Said once: a full filesystem would otherwise fill the log with it after every job.
            if !journal.checkpointFailing {
                logger.error(
                    "Could not save the checkpoint; the last one saved stays (said once until a save succeeds): \(error)"
                )
            }
            journal.checkpointFailing = true
            journal.checkpointDue = true
        }
    }
}
