import FoundationEssentials
public import WardenAPI
public import WardenCore
import WardenSQLite

/// The daemon's durable store: the append-only event journal, device tokens and the daemon's
/// checkpoint (the core's model and the running apps, re-adopted from it after a restart), in
/// one SQLite file (WAL mode).
///
/// Every method is synchronous and safe to call from any task: `SQLiteDatabase` serializes
/// writes on one connection and lets reads run beside them on connections of their own.
public final class JournalStore: Sendable {
    /// The SQLite file.
    public let path: String
    let database: SQLiteDatabase

    /// How the file is opened: write-ahead log, synced at checkpoints (`synchronous = NORMAL`:
    /// a commit survives the daemon's crash, and the last ones may be lost with the machine's
    /// power), foreign keys on, and a 5-second wait for another process's lock.
    static let configuration = SQLiteConfiguration(
        busyTimeout: .seconds(5), journalMode: .wal, synchronous: .normal, foreignKeys: true)

    /// Opens (creating it if needed) the store at `path` and brings its schema up to date.
    ///
    /// The directory must exist. Throws a `JournalStoreError` naming the path when the file
    /// cannot be opened, can only be read, or is not an appwarden store.
    public init(path: String) throws {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path, configuration: Self.configuration)
            try Self.migrate(database)
        } catch {
            throw JournalStoreError(
                path: path, message: "The journal database could not be opened or migrated.", cause: error)
        }
    }

    /// Closes the database. Later calls fail with a `JournalStoreError`.
    public func close() throws {
        database.close()
    }

    // MARK: Journal

    /// Appends core journal records (wall time given by the caller), returns the stored entries with ids.
    @discardableResult
    public func append(_ records: [JournalRecord], wallTimeMillis: Int64) throws -> [JournalEntry] {
        let contents = records.map { (app: $0.app, event: AppEvent($0.kind)) }
        return try run("append \(records.count) records to the journal") {
            try database.write { db in
                try contents.map { item in
                    try Self.insert(db, app: item.app, event: item.event, wallTimeMillis: wallTimeMillis)
                }
            }
        }
    }

    /// Appends `entries` in one transaction, in order; ids assigned.
    public func append(_ entries: [NewJournalEntry]) throws -> [JournalEntry] {
        guard !entries.isEmpty else { return [] }
        return try run("append \(entries.count) records to the journal") {
            try database.write { db in
                try entries.map { try Self.insert(db, app: $0.app, event: $0.event, wallTimeMillis: $0.wallTimeMillis) }
            }
        }
    }

    /// Appends an event that is not a core record (a message to an app, a status publication,
    /// a daemon record); id assigned.
    @discardableResult
    public func append(app: String, event: AppEvent, wallTimeMillis: Int64) throws -> JournalEntry {
        try run("append a \"\(event.name)\" record for \(app) to the journal") {
            try database.write { db in
                try Self.insert(db, app: app, event: event, wallTimeMillis: wallTimeMillis)
            }
        }
    }

    /// Journal entries matching the query, oldest first (by id).
    public func entries(_ query: JournalQuery) throws -> [JournalEntry] {
        var conditions: [String] = []
        var arguments: [SQLiteValue] = []
        if let app = query.app {
            conditions.append("app = ?")
            arguments.append(.text(app))
        }
        if let kind = query.kind {
            conditions.append("kind = ?")
            arguments.append(.text(kind.rawValue))
        }
        if let sinceID = query.sinceID {
            conditions.append("id > ?")
            arguments.append(.integer(sinceID))
        }
        if let sinceMillis = query.sinceMillis {
            conditions.append("wall_time_millis >= ?")
            arguments.append(.integer(sinceMillis))
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(SQLiteValue(max(0, query.limit)))
        // The newest N are read newest first and turned around, so that entries are always oldest first.
        let sql = """
            SELECT id, app, wall_time_millis, kind, name, properties FROM journal \(filter)
            ORDER BY id \(query.newest ? "DESC" : "ASC") LIMIT ?
            """
        let newest = query.newest
        return try run("read the journal") {
            try database.read { db in
                let entries = try db.rows(sql, arguments) { row in
                    JournalEntry(
                        id: row.int64(at: 0), app: row.string(at: 1), wallTimeMillis: row.int64(at: 2),
                        kind: row.string(at: 3), name: row.string(at: 4),
                        properties: Self.decodeProperties(row.string(at: 5)))
                }
                return newest ? entries.reversed() : entries
            }
        }
    }

    /// The id of the newest journal entry, or 0 when the journal is empty.
    public func lastEntryID() throws -> Int64 {
        try run("read the journal") {
            try database.read { db in
                try db.row("SELECT COALESCE(MAX(id), 0) FROM journal") { $0.int64(at: 0) } ?? 0
            }
        }
    }

    // MARK: Checkpoint

    /// Saves the core's checkpoint with the wall-clock time it was taken at, in one transaction:
    /// its outline replaces the previous one, and only the records that changed are written
    /// (`checkpoint_record`, a row per record).
    public func saveCheckpoint(_ text: CheckpointText, wallTimeMillis: Int64) throws {
        try run("save the lifecycle checkpoint") {
            try database.write { db in
                if text.complete { try db.execute("DELETE FROM checkpoint_record") }
                // Each statement is prepared once per connection: a save may write every record
                // (the first, or one after the level changed every app's record).
                for removal in text.removed {
                    try db.execute(
                        "DELETE FROM checkpoint_record WHERE section = ? AND name = ?",
                        [.text(removal.section.rawValue), .text(removal.name)])
                }
                for record in text.changed {
                    try db.execute(
                        "INSERT OR REPLACE INTO checkpoint_record (section, name, position, json) VALUES (?, ?, ?, ?)",
                        [
                            .text(record.section.rawValue), .text(record.name), SQLiteValue(record.position),
                            .text(record.json),
                        ])
                }
                try db.execute(
                    "INSERT OR REPLACE INTO checkpoint (slot, json, wall_time_millis) VALUES (1, ?, ?)",
                    [.text(text.outline), .integer(wallTimeMillis)])
            }
        }
    }

    /// The last saved checkpoint as its whole text, or nil when none was saved.
    public func checkpoint() throws -> (json: String, wallTimeMillis: Int64)? {
        try run("read the lifecycle checkpoint") {
            try database.read { db -> (json: String, wallTimeMillis: Int64)? in
                guard
                    let saved = try db.row(
                        "SELECT json, wall_time_millis FROM checkpoint WHERE slot = 1", [],
                        {
                            (outline: $0.string(at: 0), wallTimeMillis: $0.int64(at: 1))
                        })
                else { return nil }
                let json = try CheckpointText.assemble(outline: saved.outline) { section in
                    try db.rows(
                        "SELECT json FROM checkpoint_record WHERE section = ? ORDER BY position",
                        [.text(section.rawValue)]
                    ) { $0.string(at: 0) }
                }
                return (json: json, wallTimeMillis: saved.wallTimeMillis)
            }
        }
    }

    // MARK: Internals

    /// Runs `body`, turning a database error into a `JournalStoreError` that says what failed.
    func run<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as JournalStoreError {
            throw error
        } catch {
            throw JournalStoreError(path: path, message: "Could not \(what).", cause: error)
        }
    }

    /// Appends one entry. Its wall time is never earlier than the entry before it, so that ids
    /// increase with time even when a record is stamped earlier than the one written before it
    /// (a core record of an event, stamped with the event's time, after a message sent while
    /// carrying it out) or when the wall clock is stepped back.
    private static func insert(
        _ db: SQLiteConnection, app: String, event: AppEvent, wallTimeMillis requested: Int64
    ) throws -> JournalEntry {
        let previous = try db.row("SELECT wall_time_millis FROM journal ORDER BY id DESC LIMIT 1") { $0.int64(at: 0) }
        let wallTimeMillis = max(requested, previous ?? requested)
        let fields = event.fields
        try db.execute(
            "INSERT INTO journal (app, wall_time_millis, kind, name, properties) VALUES (?, ?, ?, ?, ?)",
            [
                .text(app), .integer(wallTimeMillis), .text(fields.kind), .text(fields.name),
                .text(encodeProperties(fields.properties)),
            ])
        return JournalEntry(id: db.lastInsertedRowID, app: app, wallTimeMillis: wallTimeMillis, event: event)
    }

    private static func encodeProperties(_ properties: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(properties) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func decodeProperties(_ text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}
