import Testing
import WardenSQLite

@Suite struct SQLiteDatabaseTests {
    private static let configuration = SQLiteConfiguration(
        busyTimeout: .seconds(5), journalMode: .wal, synchronous: .normal, foreignKeys: true)

    /// A write commits when its body returns and is rolled back when the body throws.
    @Test func aWriteRollsBackWhenItsBodyThrows() throws {
        struct Refusal: Error, Equatable {}
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file(), configuration: Self.configuration)
        try database.write { try $0.execute(script: "CREATE TABLE t (x INTEGER)") }
        try database.write { try $0.execute("INSERT INTO t VALUES (?)", [.integer(1)]) }
        #expect(throws: Refusal()) {
            try database.write { db in
                try db.execute("INSERT INTO t VALUES (?)", [.integer(2)])
                throw Refusal()
            }
        }
        #expect(try database.read { try $0.rows("SELECT x FROM t") { $0.int64(at: 0) } } == [1])
    }

    /// A read runs beside a write that is still open, on a connection of its own, and sees the
    /// last commit rather than the write's rows.
    @Test func aReadRunsBesideAnOpenWriteAndSeesTheLastCommit() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file(), configuration: Self.configuration)
        try database.write { try $0.execute(script: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);") }
        let seenDuringWrite = try database.write { db in
            try db.execute("INSERT INTO t VALUES (?)", [.integer(2)])
            return try database.read { try $0.row("SELECT COUNT(*) FROM t") { $0.int64(at: 0) } }
        }
        #expect(seenDuringWrite == 1)
        #expect(try database.read { try $0.row("SELECT COUNT(*) FROM t") { $0.int64(at: 0) } } == 2)
        let readerReadOnly = try database.read { $0.isReadOnly }
        #expect(readerReadOnly)
    }

    /// Writes from many tasks at once are serialized and none is lost; reads go on meanwhile.
    @Test func concurrentWritesAreSerialized() async throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.file(), configuration: Self.configuration)
        try database.write { try $0.execute(script: "CREATE TABLE t (worker INTEGER, step INTEGER)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for step in 0..<40 {
                        try database.write { db in
                            try db.execute(
                                "INSERT INTO t VALUES (?, ?)", [.integer(Int64(worker)), .integer(Int64(step))])
                        }
                        _ = try database.read { try $0.row("SELECT COUNT(*) FROM t") { $0.int64(at: 0) } }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try database.read { try $0.row("SELECT COUNT(*) FROM t") { $0.int64(at: 0) } } == 240)
    }

    /// A write waits for another process's lock up to the busy timeout, then fails with
    /// SQLITE_BUSY naming the file.
    @Test func aWriteGivesUpOnAnotherWritersLockAfterTheBusyTimeout() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        var configuration = Self.configuration
        configuration.busyTimeout = .milliseconds(200)
        let database = try SQLiteDatabase(path: directory.file(), configuration: configuration)
        try database.write { try $0.execute(script: "CREATE TABLE t (x INTEGER)") }
        let other = try SQLiteConnection(path: directory.file())
        try other.execute(script: "BEGIN IMMEDIATE")
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: SQLiteError.self) {
            try database.write { try $0.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(clock.now - start >= .milliseconds(150))
        #expect(error?.codeName == "SQLITE_BUSY")
        #expect(error?.path == directory.file())
        try other.execute(script: "ROLLBACK")
        try database.write { try $0.execute("INSERT INTO t VALUES (1)") }
    }

    /// After close, reads and writes fail with an error naming the file, and the write-ahead log
    /// is folded into the file and removed.
    @Test func aClosedDatabaseRefusesWorkAndLeavesNoLog() throws {
        let directory = SQLiteTestDirectory()
        defer { directory.remove() }
        let path = directory.file()
        let database = try SQLiteDatabase(path: path, configuration: Self.configuration)
        try database.write { try $0.execute(script: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);") }
        _ = try database.read { try $0.row("SELECT x FROM t") { $0.int64(at: 0) } }
        database.close()
        let write = #expect(throws: SQLiteError.self) { try database.write { _ in } }
        #expect(write?.message == "the database connection is closed")
        #expect(write?.path == path)
        #expect(throws: SQLiteError.self) { try database.read { _ in } }
        #expect(!directory.exists("test.sqlite-wal"))
        let reopened = try SQLiteDatabase(path: path, configuration: Self.configuration)
        #expect(try reopened.read { try $0.row("SELECT x FROM t") { $0.int64(at: 0) } } == 1)
    }
}
