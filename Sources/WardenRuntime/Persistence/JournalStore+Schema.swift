import WardenSQLite

/// The store's schema, built by migrations applied in order, each once.
extension JournalStore {
    /// A step of the schema: its SQL, and the identifier that records it applied.
    struct Migration: Sendable {
        var identifier: String
        var sql: String
    }

    /// The table that records the migrations applied, one row per identifier. Its name and
    /// shape are those of the files appwarden has always written, so that every file opens with
    /// every version.
    static let migrationTable = "grdb_migrations"

    /// Applies the migrations the file lacks, in order, each in a transaction of its own that
    /// also records it. A file that records migrations this version does not know (one written
    /// by a later appwarden) keeps them.
    static func migrate(_ database: SQLiteDatabase) throws {
        try database.writeWithoutTransaction { db in
            try db.execute(
                script: "CREATE TABLE IF NOT EXISTS \(migrationTable) (identifier TEXT NOT NULL PRIMARY KEY)")
            let applied = Set(try db.rows("SELECT identifier FROM \(migrationTable)") { $0.string(at: 0) })
            for migration in migrations where !applied.contains(migration.identifier) {
                try db.transaction(.immediate) {
                    try db.execute(script: migration.sql)
                    try db.execute(
                        "INSERT INTO \(migrationTable) (identifier) VALUES (?)", [.text(migration.identifier)])
                }
            }
        }
    }

    /// Every migration, in the order they are applied.
    static let migrations: [Migration] = [
        Migration(
            identifier: "v1",
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
                """),
        // The daemon's checkpoint holds the running apps and the held pushes (in the core's push
        // bookkeeping); the tables that copied them are gone.
        Migration(identifier: "v2", sql: "DROP TABLE running_app; DROP TABLE pending_push;"),
        retentionMigration,
        // Device tokens live in the core's push bookkeeping, inside the checkpoint.
        Migration(identifier: "v3", sql: "DROP TABLE device_token;"),
        // The checkpoint's records, a row each, so that a save writes only those that changed;
        // the checkpoint's own row holds the rest of its text.
        Migration(
            identifier: "checkpoint-records",
            sql: """
                CREATE TABLE checkpoint_record (
                    section TEXT NOT NULL,
                    name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    json TEXT NOT NULL,
                    PRIMARY KEY (section, name)
                ) WITHOUT ROWID;
                """),
    ]
}
