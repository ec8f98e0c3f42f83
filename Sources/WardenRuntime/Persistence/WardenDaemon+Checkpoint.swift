import Logging
import WardenCore

/// Saving the model after every job that changed it, for a restarted daemon to continue from.
extension WardenDaemon {
    /// Saves the core's checkpoint and the running apps' records when it is due
    /// (`DaemonJournal.checkpointDue`), or whether or not it is (`ifDue` false, at a stop).
    func saveCheckpoint(ifDue: Bool = true, deferrable: Bool = true) {
        let elapsed = parts.clock.elapsed()
        if ifDue,
            !journal.checkpointDue(
                deferrable: deferrable, underPressure: lifecycle.memoryLevel != .normal, at: elapsed)
        {
            return
        }
        let now = clock.now()
        let checkpoint = WardenCheckpoint(
            lifecycle: lifecycle.checkpoint(at: now),
            running: processes.table.running.values.map(\.record).sorted { $0.app < $1.app },
            recentKills: history.recentKills.isEmpty ? nil : history.recentKills, bootTime: parts.clock.bootTime())
        journal.saveCheckpoint(checkpoint, at: elapsed, wallMillis: clock.wallMillis(now), logger: logger)
    }
}
