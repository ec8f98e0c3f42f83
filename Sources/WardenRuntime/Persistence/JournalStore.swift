import FoundationEssentials
import GRDB
public import WardenAPI
public import WardenCore

/// The daemon's durable store: the append-only event journal, device tokens and the daemon's
/// checkpoint (the core's model and the running apps, re-adopted from it after a restart), in
/// one SQLite file (WAL mode).
///
/// Every method is synchronous and safe to call from any task: GRDB's `DatabasePool`
/// serializes writes and lets reads run beside them.
public final class JournalStore: Sendable {
    /// The SQLite file.
    public let path: String
    let pool: DatabasePool

    /// Opens (creating it if needed) the store at `path` and brings its schema up to date.
    ///
    /// The directory must exist. Throws a `JournalStoreError` naming the path when the file
    /// cannot be opened or is not an appwarden store.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.label = "appwarden.journal"
        configuration.busyMode = .timeout(5)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw JournalStoreError(
                path: path, message: "The journal database could not be opened or migrated.", cause: error)
        }
    }

    /// Closes the database. Later calls fail with a `JournalStoreError`.
    public func close() throws {
        try run("close the journal database") { try pool.close() }
    }

    // MARK: Journal

    /// Appends core journal records (wall time given by the caller), returns the stored entries with ids.
    @discardableResult
    public func append(_ records: [JournalRecord], wallTimeMillis: Int64) throws -> [JournalEntry] {
        let contents = records.map { (app: $0.app, event: AppEvent($0.kind)) }
        return try run("append \(records.count) records to the journal") {
            try pool.write { db in
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
            try pool.write { db in
                try entries.map { try Self.insert(db, app: $0.app, event: $0.event, wallTimeMillis: $0.wallTimeMillis) }
            }
        }
    }

    /// Appends an event that is not a core record (a message to an app, a status publication,
    /// a daemon record); id assigned.
    @discardableResult
    public func append(app: String, event: AppEvent, wallTimeMillis: Int64) throws -> JournalEntry {
        try run("append a \"\(event.name)\" record for \(app) to the journal") {
            try pool.write { db in
                try Self.insert(db, app: app, event: event, wallTimeMillis: wallTimeMillis)
            }
        }
    }

    /// Journal entries matching the query, oldest first (by id).
    public func entries(_ query: JournalQuery) throws -> [JournalEntry] {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let app = query.app {
            conditions.append("app = ?")
            arguments += [app]
        }
        if let kind = query.kind {
            conditions.append("kind = ?")
            arguments += [kind.rawValue]
        }
        if let sinceID = query.sinceID {
            conditions.append("id > ?")
            arguments += [sinceID]
        }
        if let sinceMillis = query.sinceMillis {
            conditions.append("wall_time_millis >= ?")
            arguments += [sinceMillis]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [max(0, query.limit)]
        // The newest N are read newest first and turned around, so that entries are always oldest first.
        let sql = """
            SELECT id, app, wall_time_millis, kind, name, properties FROM journal \(filter)
            ORDER BY id \(query.newest ? "DESC" : "ASC") LIMIT ?
            """
        let newest = query.newest
        let frozenArguments = arguments
        return try run("read the journal") {
            try pool.read { db in
                let entries = try Row.fetchAll(db, sql: sql, arguments: frozenArguments).map { row in
                    JournalEntry(
                        id: row["id"], app: row["app"], wallTimeMillis: row["wall_time_millis"],
                        kind: row["kind"], name: row["name"],
                        properties: Self.decodeProperties(row["properties"]))
                }
                return newest ? entries.reversed() : entries
            }
        }
    }

    /// The id of the newest journal entry, or 0 when the journal is empty.
    public func lastEntryID() throws -> Int64 {
        try run("read the journal") {
            try pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM journal") ?? 0
            }
        }
    }

    // MARK: Checkpoint

    /// Saves the core's checkpoint with the wall-clock time it was taken at, in one transaction:
    /// its outline replaces the previous one, and only the records that changed are written
    /// (`checkpoint_record`, a row per record).
    public func saveCheckpoint(_ text: CheckpointText, wallTimeMillis: Int64) throws {
        try run("save the lifecycle checkpoint") {
            try pool.write { db in
                if text.complete { try db.execute(sql: "DELETE FROM checkpoint_record") }
                // Prepared once per connection: a save may write every record (the first, or one
                // after the level changed every app's record).
                if !text.removed.isEmpty {
                    let delete = try db.cachedStatement(
                        sql: "DELETE FROM checkpoint_record WHERE section = ? AND name = ?")
                    for removal in text.removed {
                        try delete.execute(arguments: [removal.section.rawValue, removal.name])
                    }
                }
                if !text.changed.isEmpty {
                    let insert = try db.cachedStatement(
                        sql: """
                            INSERT OR REPLACE INTO checkpoint_record (section, name, position, json)
                            VALUES (?, ?, ?, ?)
                            """)
                    for record in text.changed {
                        try insert.execute(arguments: [
                            record.section.rawValue, record.name, record.position, record.json,
                        ])
                    }
                }
                try db.execute(
                    sql: "INSERT OR REPLACE INTO checkpoint (slot, json, wall_time_millis) VALUES (1, ?, ?)",
                    arguments: [text.outline, wallTimeMillis])
            }
        }
    }

    /// The last saved checkpoint as its whole text, or nil when none was saved.
    public func checkpoint() throws -> (json: String, wallTimeMillis: Int64)? {
        try run("read the lifecycle checkpoint") {
            try pool.read { db -> (json: String, wallTimeMillis: Int64)? in
                guard
                    let row = try Row.fetchOne(db, sql: "SELECT json, wall_time_millis FROM checkpoint WHERE slot = 1")
                else { return nil }
                let json = try CheckpointText.assemble(outline: row["json"]) { section in
                    try String.fetchAll(
                        db, sql: "SELECT json FROM checkpoint_record WHERE section = ? ORDER BY position",
                        arguments: [section.rawValue])
                }
                return (json: json, wallTimeMillis: row["wall_time_millis"])
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
        _ db: Database, app: String, event: AppEvent, wallTimeMillis requested: Int64
    ) throws -> JournalEntry {
        let previous = try Int64.fetchOne(db, sql: "SELECT wall_time_millis FROM journal ORDER BY id DESC LIMIT 1")
        let wallTimeMillis = max(requested, previous ?? requested)
        let fields = event.fields
        try db.execute(
            sql: "INSERT INTO journal (app, wall_time_millis, kind, name, properties) VALUES (?, ?, ?, ?, ?)",
            arguments: [app, wallTimeMillis, fields.kind, fields.name, encodeProperties(fields.properties)])
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

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE journal (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        app TEXT NOT NULL,
                        wall_time_millis INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        name TEXT NOT NULL,
                        properties TEXT NOT NULL
                    );
                    CREATE INDEX journal_app ON journal (app, id);
                    CREATE INDEX journal_time ON journal (wall_time_millis);
                    CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
                    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
                    CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
                    BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
                    CREATE TABLE device_token (app TEXT PRIMARY KEY NOT NULL, token TEXT NOT NULL);
                    CREATE TABLE pending_push (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        app TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        push_id TEXT
                    );
                    CREATE TABLE running_app (
                        app TEXT PRIMARY KEY NOT NULL,
                        launch INTEGER NOT NULL,
                        pid INTEGER NOT NULL,
                        unified_path TEXT,
                        memory_path TEXT,
                        freezer_path TEXT,
                        state TEXT NOT NULL,
                        started_wall_millis INTEGER NOT NULL
                    );
                    CREATE TABLE checkpoint (
                        slot INTEGER PRIMARY KEY CHECK (slot = 1),
                        json TEXT NOT NULL,
                        wall_time_millis INTEGER NOT NULL
                    );
                    """)
        }
        // The daemon's checkpoint holds the running apps and the held pushes (in the core's push
        // bookkeeping); the tables that copied them are gone.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "DROP TABLE running_app; DROP TABLE pending_push;")
        }
        registerRetentionMigration(in: &migrator)
        // Device tokens live in the core's push bookkeeping, inside the checkpoint.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: "DROP TABLE device_token;")
        }
        // The checkpoint's records, a row each, so that a save writes only those that changed;
        // the checkpoint's own row holds the rest of its text.
        migrator.registerMigration("checkpoint-records") { db in
            try db.execute(
                sql: """
                    CREATE TABLE checkpoint_record (
                        section TEXT NOT NULL,
                        name TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        json TEXT NOT NULL,
                        PRIMARY KEY (section, name)
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }
}
