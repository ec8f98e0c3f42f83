public import WardenAPI
public import WardenCore

/// What the daemon needs of its durable journal: `JournalStore` in the state directory, or
/// `WardenMemoryJournal` where nothing is kept on disk.
public protocol WardenJournal: Sendable {
    /// Appends core journal records (wall time given by the caller); returns the stored entries.
    func append(_ records: [JournalRecord], wallTimeMillis: Int64) throws -> [JournalEntry]
    /// Appends an event that is not a core record (a message to an app, a status publication,
    /// a daemon record).
    func append(app: String, event: AppEvent, wallTimeMillis: Int64) throws -> JournalEntry
    /// Appends entries in one go (one transaction where the journal has them), in order.
    func append(_ entries: [NewJournalEntry]) throws -> [JournalEntry]
    /// Entries matching the query, oldest first.
    func entries(_ query: JournalQuery) throws -> [JournalEntry]
    /// The id of the newest entry (0 when the journal is empty).
    func lastEntryID() throws -> Int64
    /// Saves the daemon's checkpoint taken at `wallTimeMillis`: its outline and the records
    /// that changed since the last save, at once (the last checkpoint stays if it fails).
    func saveCheckpoint(_ text: CheckpointText, wallTimeMillis: Int64) throws
    /// The last checkpoint saved, if any, as its whole text.
    func checkpoint() throws -> (json: String, wallTimeMillis: Int64)?
}

extension JournalStore: WardenJournal {}

extension WardenJournal {
    /// Saves a checkpoint (JSON text) taken at `wallTimeMillis` whole, replacing the last one and
    /// its records: for a journal no daemon is saving into (tests, tools). A running daemon saves
    /// through its `CheckpointEncoder`, which keeps track of the records the journal holds, and
    /// would not know of this text.
    public func saveCheckpoint(_ json: String, wallTimeMillis: Int64) throws {
        try saveCheckpoint(CheckpointText(outline: json, changed: [], complete: true), wallTimeMillis: wallTimeMillis)
    }
}

/// An entry to append to the journal, with the wall time it happened at.
public struct NewJournalEntry: Sendable {
    public var app: String
    public var event: AppEvent
    public var wallTimeMillis: Int64

    public init(app: String, event: AppEvent, wallTimeMillis: Int64) {
        self.app = app
        self.event = event
        self.wallTimeMillis = wallTimeMillis
    }
}
