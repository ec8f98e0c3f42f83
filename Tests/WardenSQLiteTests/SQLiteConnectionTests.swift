import Testing
import WardenSQLite

@Suite struct SQLiteConnectionTests {
    /// Every type bound to a parameter reads back as the same value, stored as the SQLite type it
    /// is: the empty string as text and the empty blob as a blob, not null.
    @Test func eachTypeRoundTrips() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(script: "CREATE TABLE value (id INTEGER PRIMARY KEY, v)")
        let values: [SQLiteValue] = [
            .integer(.max), .integer(.min), .integer(0), .real(3.25), .real(-1e-300),
            .text("mail ✉︎ and maps"), .text(""), .text("before\u{0}after"),
            .blob([0, 1, 2, 0xff, 0]), .blob([]), .null,
        ]
        for value in values {
            try connection.execute("INSERT INTO value (v) VALUES (?)", [value])
        }
        let read = try connection.rows("SELECT v, typeof(v) FROM value ORDER BY id") { row in
            (row.value(at: 0), row.string(at: 1))
        }
        #expect(read.map(\.0) == values)
        #expect(
            read.map(\.1) == [
                "integer", "integer", "integer", "real", "real", "text", "text", "text", "blob", "blob", "null",
            ])
    }

    /// The typed binds and reads give back what they were given, and a null column reads as
    /// zero, the empty string and no bytes.
    @Test func typedBindsAndReadsRoundTrip() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        let statement = try connection.prepare("SELECT ?, ?, ?, ?, ?")
        #expect(statement.parameterCount == 5)
        try statement.bind(Int64(-42), at: 0)
        try statement.bind(0.5, at: 1)
        try statement.bind("text", at: 2)
        try statement.bind(blob: [7, 8, 9], at: 3)
        try statement.bindNull(at: 4)
        #expect(try statement.step())
        #expect(statement.columnCount == 5)
        #expect(statement.int64(at: 0) == -42)
        #expect(statement.double(at: 1) == 0.5)
        #expect(statement.string(at: 2) == "text")
        #expect(statement.blob(at: 3) == [7, 8, 9])
        #expect(statement.isNull(at: 4) && !statement.isNull(at: 0))
        #expect(statement.int64(at: 4) == 0 && statement.string(at: 4) == "" && statement.blob(at: 4) == [])
        #expect(try !statement.step())
    }

    /// A statement SQLite refuses fails with an error that gives SQLite's code and message, the
    /// file and the statement.
    @Test func aRefusedStatementNamesTheProblemAndTheFile() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let path = directory.file()
        let connection = try SQLiteConnection(path: path)
        try connection.execute(script: "CREATE TABLE journal (id INTEGER PRIMARY KEY, app TEXT NOT NULL)")
        let error = #expect(throws: SQLiteError.self) {
            _ = try connection.rows("SELECT missing FROM journal") { $0.int64(at: 0) }
        }
        #expect(error?.code == 1)
        #expect(error?.codeName == "SQLITE_ERROR")
        #expect(error?.message == "no such column: missing")
        #expect(error?.path == path)
        #expect(error?.sql == "SELECT missing FROM journal")
        #expect(
            error?.description
                == "SQLite error 1 (SQLITE_ERROR) in \"\(path)\": no such column: missing; the statement was: "
                + "SELECT missing FROM journal")
    }

    /// A constraint that fails while a statement runs gives the extended code and the
    /// constraint's own message; so does a trigger's RAISE.
    @Test func aFailedConstraintGivesItsExtendedCodeAndMessage() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(
            script: """
                CREATE TABLE journal (id INTEGER PRIMARY KEY, app TEXT NOT NULL);
                CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
                BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
                """)
        let nullApp = #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO journal (app) VALUES (?)", [.null])
        }
        #expect(nullApp?.code == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        #expect(nullApp?.primaryCode == 19)
        #expect(nullApp?.message == "NOT NULL constraint failed: journal.app")
        try connection.execute("INSERT INTO journal (app) VALUES (?)", [.text("mail")])
        let delete = #expect(throws: SQLiteError.self) { try connection.execute("DELETE FROM journal") }
        #expect(delete?.code == 1811)  // SQLITE_CONSTRAINT_TRIGGER
        #expect(delete?.message == "the journal is append-only")
        #expect(try connection.row("SELECT COUNT(*) FROM journal") { $0.int64(at: 0) } == 1)
    }

    /// A script's failure names the statement text and SQLite's message.
    @Test func aFailedScriptNamesItsProblem() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute(script: "CREATE TABLE a (x); DROP TABLE b;")
        }
        #expect(error?.message == "no such table: b")
        #expect(error?.sql == "CREATE TABLE a (x); DROP TABLE b;")
    }

    /// A statement given the wrong number of values, text that holds two statements and text
    /// that holds none are refused before anything runs.
    @Test func misusedStatementsAreRefused() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(script: "CREATE TABLE t (x)")
        let count = #expect(throws: SQLiteError.self) { try connection.execute("INSERT INTO t VALUES (?)", []) }
        #expect(count?.codeName == "SQLITE_RANGE")
        #expect(count?.message == "the statement has 1 parameters and was given 0 values")
        let two = #expect(throws: SQLiteError.self) { _ = try connection.prepare("SELECT 1; SELECT 2") }
        #expect(two?.message == "the text holds more than one statement")
        let none = #expect(throws: SQLiteError.self) { _ = try connection.prepare("  -- nothing\n") }
        #expect(none?.message == "the text holds no SQL statement")
        #expect(try connection.prepare("SELECT 1;  \n").row { $0.int64(at: 0) } == 1)
        #expect(try connection.row("SELECT COUNT(*) FROM t") { $0.int64(at: 0) } == 0)
    }

    /// A cached statement is prepared once and comes back reset with nothing bound, whatever the
    /// last use left.
    @Test func aCachedStatementIsReusedReset() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(script: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
        let sql = "SELECT x FROM t WHERE x >= ? ORDER BY x"
        let first = try connection.cachedStatement(sql)
        try first.bind(Int64(2), at: 0)
        #expect(try first.step())
        #expect(first.int64(at: 0) == 2)
        // Left half-way through its rows with a value bound.
        let second = try connection.cachedStatement(sql)
        #expect(first === second)
        #expect(try second.step() == false, "a statement reset with nothing bound compares x with null")
        #expect(try connection.rows(sql, [.integer(1)]) { $0.int64(at: 0) } == [1, 2, 3])
        #expect(try connection.rows(sql, [.integer(3)]) { $0.int64(at: 0) } == [3])
    }

    /// A transaction commits when its body returns and rolls back when it throws, with the
    /// body's error thrown again and the connection usable after.
    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        struct Refusal: Error, Equatable {}
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(script: "CREATE TABLE t (x INTEGER)")
        try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (?)", [.integer(1)])
        }
        #expect(throws: Refusal()) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", [.integer(2)])
                #expect(connection.isInTransaction)
                throw Refusal()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.rows("SELECT x FROM t") { $0.int64(at: 0) } == [1])
        let value = try connection.transaction(.deferred) { 7 }
        #expect(value == 7)
    }

    /// A statement that fails inside a transaction undoes the statements before it too.
    @Test func aFailedStatementRollsBackTheWholeTransaction() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(script: "CREATE TABLE t (x INTEGER NOT NULL)")
        let error = #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", [.integer(1)])
                try connection.execute("INSERT INTO t VALUES (?)", [.null])
            }
        }
        #expect(error?.primaryCode == 19)
        #expect(try connection.row("SELECT COUNT(*) FROM t") { $0.int64(at: 0) } == 0)
    }

    /// The last inserted rowid and the count of changed rows are the connection's own.
    @Test func insertedRowIDAndChangesAreReported() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, x)")
        try connection.execute("INSERT INTO t (x) VALUES (?)", [.text("a")])
        try connection.execute("INSERT INTO t (x) VALUES (?)", [.text("b")])
        #expect(connection.lastInsertedRowID == 2)
        try connection.execute("DELETE FROM t")
        #expect(connection.changes == 2)
    }

    /// The configuration's settings are in force once the connection is open.
    @Test func theConfigurationIsApplied() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let configuration = SQLiteConfiguration(
            busyTimeout: .milliseconds(1500), journalMode: .wal, synchronous: .normal, foreignKeys: true)
        let connection = try SQLiteConnection(path: directory.file(), configuration: configuration)
        #expect(try connection.row("PRAGMA journal_mode") { $0.string(at: 0) } == "wal")
        #expect(try connection.row("PRAGMA synchronous") { $0.int64(at: 0) } == 1)
        #expect(try connection.row("PRAGMA foreign_keys") { $0.int64(at: 0) } == 1)
        #expect(try connection.row("PRAGMA busy_timeout") { $0.int64(at: 0) } == 1500)
        // Double quotes are identifiers only: a misspelt column is an error, not a string.
        let quoted = #expect(throws: SQLiteError.self) {
            _ = try connection.row(#"SELECT "no such column""#) { $0.string(at: 0) }
        }
        #expect(quoted?.message == "no such column: no such column")
        #expect(!connection.isReadOnly)
    }

    /// A read-only connection reads and refuses to write.
    @Test func aReadOnlyConnectionRefusesWrites() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let writer = try SQLiteConnection(path: directory.file())
        try writer.execute(script: "CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        let reader = try SQLiteConnection(path: directory.file(), configuration: SQLiteConfiguration().reader)
        #expect(reader.isReadOnly)
        #expect(try reader.row("SELECT x FROM t") { $0.int64(at: 0) } == 1)
        let error = #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (2)") }
        #expect(error?.codeName == "SQLITE_READONLY")
    }

    /// A file that is not a database fails at open, naming the file; so does a file in a
    /// directory that does not exist.
    @Test func anUnusableFileFailsAtOpen() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let garbage = directory.makeFile("garbage.sqlite", bytes: Array(repeating: 0x41, count: 8192))
        let notDatabase = #expect(throws: SQLiteError.self) { _ = try SQLiteConnection(path: garbage) }
        #expect(notDatabase?.codeName == "SQLITE_NOTADB")
        #expect(notDatabase?.message == "file is not a database")
        #expect(notDatabase?.description.contains(garbage) == true)

        let missing = directory.path + "/no-such-directory/test.sqlite"
        let unopenable = #expect(throws: SQLiteError.self) { _ = try SQLiteConnection(path: missing) }
        #expect(unopenable?.codeName == "SQLITE_CANTOPEN")
        #expect(unopenable?.path == missing)
    }

    /// A connection asked not to create its file fails on a missing one.
    @Test func aMissingFileIsNotCreatedWhenNotAskedTo() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let error = #expect(throws: SQLiteError.self) {
            _ = try SQLiteConnection(path: directory.file(), configuration: SQLiteConfiguration(create: false))
        }
        #expect(error?.codeName == "SQLITE_CANTOPEN")
    }

    /// After close, the connection and the statements it cached fail with an error that names
    /// the file; closing again does nothing.
    @Test func aClosedConnectionRefusesWork() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let connection = try SQLiteConnection(path: directory.file())
        let statement = try connection.cachedStatement("SELECT 1")
        connection.close()
        #expect(connection.isClosed)
        let error = #expect(throws: SQLiteError.self) { try connection.execute(script: "SELECT 1") }
        #expect(error?.codeName == "SQLITE_MISUSE")
        #expect(error?.message == "the database connection is closed")
        #expect(error?.path == directory.file())
        #expect(throws: SQLiteError.self) { _ = try statement.step() }
        connection.close()
    }
}
