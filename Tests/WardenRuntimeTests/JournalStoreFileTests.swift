import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenSQLite
import WardenTesting

@testable import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The journal's file as earlier appwarden versions wrote it, and files the store cannot use.
@Suite struct JournalStoreFileTests {
    /// An object of the schema as `sqlite_master` lists it.
    struct SchemaObject: Equatable, CustomStringConvertible {
        var type: String
        var name: String
        var table: String
        var sql: String?

        var description: String { "\(type) \(name) on \(table): \(sql ?? "(none)")" }
    }

    /// The schema of a journal file written by appwarden 0.1 (which used GRDB), copied from the
    /// `sqlite_master` of such a file: the tables, indexes and triggers left by its migrations
    /// `v1`, `v2`, `journal-retention`, `v3` and `checkpoint-records`, in the order it made them.
    static let legacySchema = [
        SchemaObject(
            type: "table", name: "grdb_migrations", table: "grdb_migrations",
            sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)"),
        SchemaObject(
            type: "index", name: "sqlite_autoindex_grdb_migrations_1", table: "grdb_migrations", sql: nil),
        SchemaObject(
            type: "table", name: "journal", table: "journal",
            sql: """
                CREATE TABLE journal (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    app TEXT NOT NULL,
                    wall_time_millis INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    name TEXT NOT NULL,
                    properties TEXT NOT NULL
                )
                """),
        SchemaObject(
            type: "table", name: "sqlite_sequence", table: "sqlite_sequence",
            sql: "CREATE TABLE sqlite_sequence(name,seq)"),
        SchemaObject(
            type: "index", name: "journal_app", table: "journal", sql: "CREATE INDEX journal_app ON journal (app, id)"),
        SchemaObject(
            type: "index", name: "journal_time", table: "journal",
            sql: "CREATE INDEX journal_time ON journal (wall_time_millis)"),
        SchemaObject(
            type: "trigger", name: "journal_no_update", table: "journal",
            sql: """
                CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
                BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END
                """),
        SchemaObject(
            type: "table", name: "checkpoint", table: "checkpoint",
            sql: """
                CREATE TABLE checkpoint (
                    slot INTEGER PRIMARY KEY CHECK (slot = 1),
                    json TEXT NOT NULL,
                    wall_time_millis INTEGER NOT NULL
                )
                """),
        SchemaObject(
            type: "trigger", name: "journal_keeps_newest", table: "journal",
            sql: """
                CREATE TRIGGER journal_keeps_newest BEFORE DELETE ON journal
                WHEN OLD.id >= (SELECT MAX(id) FROM journal)
                BEGIN SELECT RAISE(ABORT, 'the journal keeps its newest entry'); END
                """),
        SchemaObject(
            type: "table", name: "checkpoint_record", table: "checkpoint_record",
            sql: """
                CREATE TABLE checkpoint_record (
                    section TEXT NOT NULL,
                    name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    json TEXT NOT NULL,
                    PRIMARY KEY (section, name)
                ) WITHOUT ROWID
                """),
    ]

    /// Rows as appwarden 0.1 wrote them, copied from its file: the journal after a prune had
    /// removed its first eight entries (so the next id comes from `sqlite_sequence`), and a
    /// checkpoint saved record by record (its outline holds a 0x01 mark for each section).
    static let legacyRows = #"""
        INSERT INTO grdb_migrations VALUES('v1');
        INSERT INTO grdb_migrations VALUES('v2');
        INSERT INTO grdb_migrations VALUES('journal-retention');
        INSERT INTO grdb_migrations VALUES('v3');
        INSERT INTO grdb_migrations VALUES('checkpoint-records');
        INSERT INTO journal VALUES(9,'sleeper',1796341307577,'status','terminating','{}');
        INSERT INTO journal VALUES(10,'sleeper',1796341307577,'analytics','$AppTerminated','{"reason":"launchFailed"}');
        INSERT INTO journal VALUES(11,'sleeper',1796341307577,'state','notRunning','{"because":"its launch failed","from":"inactive","to":"notRunning"}');
        INSERT INTO journal VALUES(12,'appwarden',1796341308760,'input','policy','{"path":"policy.toml","text":"[apps.sleeper]\ncommand = \"\/bin\/sleep\"\n"}');
        INSERT INTO journal VALUES(13,'appwarden',1796341309834,'system','daemonStopped','{}');
        UPDATE sqlite_sequence SET seq = 13 WHERE name = 'journal';
        INSERT INTO checkpoint VALUES(1,'{"lifecycle":{"apps":[|apps]},"running":[|running]}',1796341309836);
        INSERT INTO checkpoint_record VALUES('apps','maps',1,'{"name":"maps"}');
        INSERT INTO checkpoint_record VALUES('apps','mail',0,'{"name":"mail"}');
        INSERT INTO checkpoint_record VALUES('running','mail',0,'{"app":"mail","pid":41}');
        """#.replacingOccurrences(of: "|", with: "\u{01}")

    /// Makes a file at `path` as appwarden 0.1 left it: WAL mode, the legacy schema and rows.
    static func makeLegacyFile(at path: String) throws {
        let connection = try SQLiteConnection(path: path, configuration: SQLiteConfiguration(journalMode: .wal))
        defer { connection.close() }
        try connection.transaction {
            for object in legacySchema where object.name != "sqlite_sequence" {
                if let sql = object.sql { try connection.execute(script: sql) }
            }
            // The sequence row appears with the first insert; the prune left it at 13.
            try connection.execute(script: legacyRows)
        }
    }

    /// The schema objects of the file `store` has open, in the order they were made.
    static func schema(of store: JournalStore) throws -> [SchemaObject] {
        try store.database.read { db in
            try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid") { row in
                SchemaObject(
                    type: row.string(at: 0), name: row.string(at: 1), table: row.string(at: 2),
                    sql: row.isNull(at: 3) ? nil : row.string(at: 3))
            }
        }
    }

    /// A file appwarden 0.1 wrote opens without a migration, reads the same entries and
    /// checkpoint, and takes new entries after its last id, their properties encoded as before.
    @Test func aFileWrittenByEarlierVersionsReadsTheSame() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        try Self.makeLegacyFile(at: directory.databasePath)
        let store = try JournalStore(path: directory.databasePath)
        #expect(try Self.schema(of: store) == Self.legacySchema)
        #expect(
            try store.database.read { try $0.rows("SELECT identifier FROM grdb_migrations") { $0.string(at: 0) } }
                .sorted() == ["checkpoint-records", "journal-retention", "v1", "v2", "v3"])
        let entries = try store.entries(JournalQuery())
        #expect(entries.map(\.id) == [9, 10, 11, 12, 13])
        #expect(entries.map(\.app) == ["sleeper", "sleeper", "sleeper", "appwarden", "appwarden"])
        #expect(entries[1].name == "$AppTerminated" && entries[1].properties == ["reason": "launchFailed"])
        #expect(entries[2].properties["because"] == "its launch failed")
        #expect(entries[3].properties["text"] == "[apps.sleeper]\ncommand = \"/bin/sleep\"\n")
        #expect(entries[4].wallTimeMillis == 1_796_341_309_834)
        #expect(try store.lastEntryID() == 13)
        let checkpoint = try #require(try store.checkpoint())
        #expect(
            checkpoint.json
                == #"{"lifecycle":{"apps":[{"name":"mail"},{"name":"maps"}]},"running":[{"app":"mail","pid":41}]}"#)
        #expect(checkpoint.wallTimeMillis == 1_796_341_309_836)

        let next = try store.append(
            app: "mail", kind: "input", name: "policy", properties: ["text": "/bin/mail", "path": "a.toml"],
            wallTimeMillis: 1_796_341_400_000)
        #expect(next.id == 14)
        let stored = try store.database.read { db in
            try db.row("SELECT properties FROM journal WHERE id = ?", [.integer(next.id)]) { $0.string(at: 0) }
        }
        #expect(stored == #"{"path":"a.toml","text":"\/bin\/mail"}"#)
    }

    /// A new file has the schema and migration records appwarden 0.1 wrote, object for object
    /// and statement text for statement text, in WAL mode.
    @Test func aNewFileHasTheSchemaEarlierVersionsWrote() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        #expect(try Self.schema(of: store) == Self.legacySchema)
        #expect(
            try store.database.read { try $0.rows("SELECT identifier FROM grdb_migrations") { $0.string(at: 0) } }
                == ["v1", "v2", "journal-retention", "v3", "checkpoint-records"])
        #expect(try store.database.read { try $0.row("PRAGMA journal_mode") { $0.string(at: 0) } } == "wal")
        let synchronous = try store.database.writeWithoutTransaction { db in
            try db.row("PRAGMA synchronous") { $0.int64(at: 0) }
        }
        #expect(synchronous == 1, "NORMAL")
    }

    /// A refused write names the file, what was being done, and SQLite's code and message.
    @Test func aRefusedWriteSaysWhatFailedWhereAndWhy() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        try store.append(app: "mail", kind: "status", name: "foreground", properties: [:], wallTimeMillis: 1)
        let error = #expect(throws: JournalStoreError.self) {
            try store.run("delete the journal") {
                try store.database.write { try $0.execute("DELETE FROM journal") }
            }
        }
        #expect(
            error?.description
                == "Journal \"\(directory.databasePath)\": Could not delete the journal. (SQLite error 1811 "
                + "(SQLITE_CONSTRAINT): the journal keeps its newest entry; the statement was: DELETE FROM journal)")
    }

    /// A file that is not a database is refused at open with an error that names the file and
    /// says why.
    @Test func aFileThatIsNotADatabaseIsRefused() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        try Data(repeating: 0x2a, count: 16_384).write(to: URL(fileURLWithPath: directory.databasePath))
        let error = #expect(throws: JournalStoreError.self) { try JournalStore(path: directory.databasePath) }
        #expect(error?.description.contains("Journal \"\(directory.databasePath)\"") == true)
        #expect(error?.description.contains("SQLITE_NOTADB") == true)
        #expect(error?.description.contains("file is not a database") == true)
    }

    /// A store whose pages after the first were overwritten is refused at open, when its
    /// migrations are read, with SQLite's word for it and the file's name.
    @Test func aCorruptedFileIsRefusedWithAnError() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        for index in 0..<400 {
            try store.append(
                app: "mail", kind: "status", name: "entry \(index)", properties: ["n": String(index)],
                wallTimeMillis: Int64(index))
        }
        try store.close()
        // Everything after the first page (the schema's) becomes garbage.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.databasePath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xee, count: Int(size) - 4096))
        try handle.close()
        let error = #expect(throws: JournalStoreError.self) { try JournalStore(path: directory.databasePath) }
        #expect(
            error?.description.contains("Journal \"\(directory.databasePath)\": The journal database could not") == true
        )
        #expect(error?.description.contains("SQLITE_CORRUPT") == true)
    }

    /// After close, calls fail with a `JournalStoreError` naming the file.
    @Test func aClosedStoreRefusesCalls() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let store = try JournalStore(path: directory.databasePath)
        try store.close()
        let error = #expect(throws: JournalStoreError.self) {
            try store.append(app: "mail", kind: "status", name: "foreground", properties: [:], wallTimeMillis: 1)
        }
        #expect(error?.description.contains(directory.databasePath) == true)
        #expect(error?.description.contains("the database connection is closed") == true)
        #expect(throws: JournalStoreError.self) { _ = try store.entries(JournalQuery()) }
    }

    /// A journal on a file system mounted read-only is refused at open with an error that names
    /// the file, rather than opened to fail at every write.
    @Test(.requiresRoot) func aJournalOnAReadOnlyFileSystemIsRefused() throws {
        let directory = try JournalTestDirectory()
        defer { directory.remove() }
        let mountPoint = directory.path + "/mount"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=1m") == 0 else {
            Issue.record("Could not mount a tmpfs on \(mountPoint): \(String(cString: strerror(errno)))")
            return
        }
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let path = mountPoint + "/appwarden.sqlite"
        let store = try JournalStore(path: path)
        try store.append(app: "mail", kind: "status", name: "foreground", properties: [:], wallTimeMillis: 1)
        try store.close()
        guard mount("tmpfs", mountPoint, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
            Issue.record("Could not remount \(mountPoint) read-only: \(String(cString: strerror(errno)))")
            return
        }
        let error = #expect(throws: JournalStoreError.self) { try JournalStore(path: path) }
        #expect(error?.description.contains("Journal \"\(path)\"") == true)
        #expect(
            error?.description.contains("SQLITE_READONLY") == true
                || error?.description.contains("SQLITE_CANTOPEN") == true)
    }
}
