import Logging
public import WardenCore
import WardenSQLite

extension JournalStore {
    /// How often the daemon prunes the journal after the first prune at start.
    static let retentionInterval: Duration = .seconds(3600)

    /// Prunes the journal at start and then every hour, beside the daemon's loop, to the
    /// retention `retention` gives each time (the policy's `[journal]` in force; nil once the
    /// daemon stops, which ends the pruning), in batches of 1,000 rows with a yield between
    /// batches, so appends and calls go on while old entries go.
    func keepPruned(clock: WardenClock, logger: Logger, retention: () async -> JournalRetention?) async {
        var next = clock.elapsed()
        while !Task.isCancelled {
            do {
                try await clock.sleep(untilElapsed: next)
            } catch {
                return
            }
            guard let retention = await retention() else { return }
            do {
                let deleted = try await prune(
                    retention, nowMillis: WardenClock.wallMillisNow(), between: { await Task.yield() })
                if deleted > 0 { logger.info("Pruned \(deleted) old journal entries.") }
            } catch {
                logger.warning("Could not prune the journal: \(error)")
            }
            next = max(next + Self.retentionInterval, clock.elapsed())
        }
    }

    /// Deletes journal entries that `retention` no longer keeps, oldest first, in batches.
    ///
    /// An entry goes when it is older than `retention.keep` (by its wall time, against
    /// `nowMillis`) or when more than `retention.maxEntries` newer entries exist. The newest
    /// entry always stays, so ids keep increasing after a prune (the table is `AUTOINCREMENT`
    /// and the schema refuses to delete the newest row). Each batch of at most `batchSize` rows
    /// is its own short write transaction, so appends go on between batches; `between` runs after
    /// each batch (the daemon yields there).
    ///
    /// - Returns: How many entries were deleted.
    @discardableResult
    public func prune(
        _ retention: JournalRetention, nowMillis: Int64, batchSize: Int = 1000,
        between: () async -> Void = {}
    ) async throws -> Int {
        guard retention.isBounded else { return 0 }
        let cutoff = try pruneCutoff(retention, nowMillis: nowMillis)
        guard cutoff > 0 else { return 0 }
        var deleted = 0
        while true {
            let count = try pruneBatch(belowID: cutoff, limit: max(1, batchSize))
            deleted += count
            if count < batchSize { return deleted }
            await between()
        }
    }

    /// The lowest id that stays: everything below it goes. 0 when nothing goes.
    private func pruneCutoff(_ retention: JournalRetention, nowMillis: Int64) throws -> Int64 {
        try run("find the journal entries to prune") {
            try database.read { db in
                let newest = try db.row("SELECT COALESCE(MAX(id), 0) FROM journal") { $0.int64(at: 0) } ?? 0
                guard newest > 0 else { return 0 }
                var cutoff: Int64 = 0
                if let keep = retention.keep {
                    let oldest = nowMillis - keep.components.seconds * 1000
                    // MIN(id) of no row is null: then every entry is too old.
                    let firstKept =
                        try db.row("SELECT MIN(id) FROM journal WHERE wall_time_millis >= ?", [.integer(oldest)]) {
                            $0.isNull(at: 0) ? newest : $0.int64(at: 0)
                        } ?? newest
                    cutoff = max(cutoff, firstKept)
                }
                if let maxEntries = retention.maxEntries {
                    let firstKept =
                        try db.row(
                            "SELECT id FROM journal ORDER BY id DESC LIMIT 1 OFFSET ?",
                            [SQLiteValue(max(1, maxEntries) - 1)]
                        ) { $0.int64(at: 0) } ?? 0
                    cutoff = max(cutoff, firstKept)
                }
                return min(cutoff, newest)
            }
        }
    }

    /// Deletes up to `limit` of the oldest entries with ids below `id`; returns how many went.
    private func pruneBatch(belowID id: Int64, limit: Int) throws -> Int {
        try run("prune the journal") {
            try database.write { db in
                try db.execute(
                    "DELETE FROM journal WHERE id IN (SELECT id FROM journal WHERE id < ? ORDER BY id LIMIT ?)",
                    [.integer(id), SQLiteValue(limit)])
                return db.changes
            }
        }
    }

    /// The migration that lets retention delete old entries: the journal stays append-only for
    /// updates, and its newest entry can never be deleted.
    static let retentionMigration = Migration(
        identifier: "journal-retention",
        sql: """
            DROP TRIGGER journal_no_delete;
            CREATE TRIGGER journal_keeps_newest BEFORE DELETE ON journal
            WHEN OLD.id >= (SELECT MAX(id) FROM journal)
            BEGIN SELECT RAISE(ABORT, 'the journal keeps its newest entry'); END;
            """)
}
