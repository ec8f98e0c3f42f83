import Foundation
import Logging
import WardenCore

/// Saving the model after every event, for a restarted daemon to continue from.
extension WardenDaemon {
    /// Saves the core's checkpoint and the running apps' records, in one row: the one source
    /// a restarted daemon re-adopts from.
    func saveCheckpoint() {
        let now = now()
        let checkpoint = WardenCheckpoint(
            lifecycle: lifecycle.checkpoint(at: now),
            running: processes.running.values.map(\.record).sorted { $0.app < $1.app },
            recentKills: history.recentKills.isEmpty ? nil : history.recentKills)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let json = String(decoding: try encoder.encode(checkpoint), as: UTF8.self)
            try parts.journal.saveCheckpoint(json, wallTimeMillis: wallMillis(now))
        } catch {
            logger.error("Could not save the checkpoint: \(error)")
        }
    }
}
