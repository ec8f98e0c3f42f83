import Synchronization
public import WardenAPI
public import WardenCore

/// A journal kept in memory only: for a daemon without a state directory to write to, and
/// for tests of what does not depend on SQLite.
public final class WardenMemoryJournal: WardenJournal {
    private struct Contents {
        var entries: [JournalEntry] = []
        var checkpoint: (json: String, wallTimeMillis: Int64)?
        /// The records of the last checkpoint saved as an outline.
        var checkpointRecords = CheckpointRecords()
    }

    private let contents = Mutex(Contents())

    /// Makes an empty journal.
    public init() {}

    public func append(_ records: [JournalRecord], wallTimeMillis: Int64) throws -> [JournalEntry] {
        records.map { record in
            append(app: record.app, event: AppEvent(record.kind), wallTimeMillis: wallTimeMillis)
        }
    }

    public func append(_ entries: [NewJournalEntry]) -> [JournalEntry] {
        entries.map { append(app: $0.app, event: $0.event, wallTimeMillis: $0.wallTimeMillis) }
    }

    public func append(app: String, event: AppEvent, wallTimeMillis: Int64) -> JournalEntry {
        contents.withLock { contents in
            // As in `JournalStore`, wall times never go backwards.
            let time = max(wallTimeMillis, contents.entries.last?.wallTimeMillis ?? wallTimeMillis)
            let entry = JournalEntry(
                id: Int64(contents.entries.count + 1), app: app, wallTimeMillis: time, event: event)
            contents.entries.append(entry)
            return entry
        }
    }

    public func entries(_ query: JournalQuery) -> [JournalEntry] {
        contents.withLock { contents in
            let matching = contents.entries.filter(query.matches)
            let limit = max(0, query.limit)
            return Array(query.newest ? matching.suffix(limit) : matching.prefix(limit))
        }
    }

    public func lastEntryID() -> Int64 {
        contents.withLock { $0.entries.last?.id ?? 0 }
    }

    public func saveCheckpoint(_ text: CheckpointText, wallTimeMillis: Int64) {
        contents.withLock { contents in
            contents.checkpoint = (text.outline, wallTimeMillis)
            contents.checkpointRecords.apply(text)
        }
    }

    public func checkpoint() -> (json: String, wallTimeMillis: Int64)? {
        contents.withLock { contents in
            contents.checkpoint.map { (contents.checkpointRecords.assemble($0.json), $0.wallTimeMillis) }
        }
    }
}
