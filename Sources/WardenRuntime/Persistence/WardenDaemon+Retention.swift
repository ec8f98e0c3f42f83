import Logging
import WardenCore

/// Pruning the journal to its retention (`[journal]`).
extension WardenDaemon {
    /// How often the journal is pruned after the first prune at start.
    static let retentionInterval: Duration = .seconds(3600)

    /// Prunes the journal at start and then every hour, beside the loop, in batches of 1,000 rows
    /// with a yield between batches, so appends and calls go on while old entries go.
    nonisolated func pruneJournal(_ store: JournalStore) async {
        let clock = parts.clock
        let logger = parts.logger
        var next = clock.elapsed()
        while !Task.isCancelled {
            do {
                try await clock.sleep(untilElapsed: next)
            } catch {
                return
            }
            guard let retention = await onLoop({ daemon in daemon.policy.journal }) else { return }
            do {
                let deleted = try await store.prune(
                    retention, nowMillis: WardenClock.wallMillisNow(), between: { await Task.yield() })
                if deleted > 0 { logger.info("Pruned \(deleted) old journal entries.") }
            } catch {
                logger.warning("Could not prune the journal: \(error)")
            }
            next = max(next + Self.retentionInterval, clock.elapsed())
        }
    }
}
