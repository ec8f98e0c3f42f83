internal import CSQLite

/// One connection to an SQLite file (`sqlite3`): statements, transactions and the settings of
/// `SQLiteConfiguration`.
///
/// A connection is used by one thread of control at a time (it is opened with
/// `SQLITE_OPEN_NOMUTEX`); `SQLiteDatabase` shares connections between tasks. It closes, and
/// finalizes the statements it keeps, on `close()` or when the last reference to it goes.
public final class SQLiteConnection {
    /// The database file.
    public let path: String
    /// The connection; nil once closed.
    private var handle: OpaquePointer?
    /// The statements prepared by `cachedStatement`, by SQL text.
    private var cache: [String: SQLiteStatement] = [:]

    /// Opens the file at `path` (`sqlite3_open_v2`) and applies `configuration`, then reads the
    /// schema so that a file that is not a database fails here rather than at its first use.
    public init(path: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) throws(SQLiteError) {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if configuration.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE | (configuration.create ? SQLITE_OPEN_CREATE : 0)
        }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let error = SQLiteError(code: code, handle: opened, path: path)
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        do {
            try configure(configuration)
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    private func configure(_ configuration: SQLiteConfiguration) throws(SQLiteError) {
        let connection = try opened()
        sqlite3_extended_result_codes(connection, 1)
        let timeout = configuration.busyTimeout.components
        let milliseconds = timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(connection, Int32(clamping: milliseconds))
        csqlite_disable_double_quoted_strings(connection)
        try execute(script: "SELECT * FROM sqlite_master LIMIT 1")
        // SQLite opens a file it may not write (its mode, its file system) for reading without
        // a word; a connection meant to write says so at once instead of at its first write.
        if !configuration.readOnly && sqlite3_db_readonly(connection, "main") == 1 {
            throw SQLiteError(
                code: SQLITE_READONLY,
                message: "the file can only be read (its permissions or its file system refuse writes)", path: path)
        }
        try execute(script: "PRAGMA foreign_keys = \(configuration.foreignKeys ? "ON" : "OFF")")
        if let mode = configuration.journalMode {
            let sql = "PRAGMA journal_mode = \(mode.rawValue)"
            let now = try prepare(sql).row { $0.string(at: 0) }
            guard now?.lowercased() == mode.rawValue else {
                throw SQLiteError(
                    code: SQLITE_ERROR,
                    message: "the journal mode stays \(now ?? "unknown") where \(mode.rawValue) was asked for",
                    path: path, sql: sql)
            }
        }
        if let synchronous = configuration.synchronous {
            try execute(script: "PRAGMA synchronous = \(synchronous.rawValue)")
        }
    }

    /// The connection's handle, or the error of a closed connection.
    private func opened(_ sql: String? = nil) throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError.closed(path: path, sql: sql) }
        return handle
    }

    /// Finalizes every statement the connection keeps and closes it (`sqlite3_close_v2`). A
    /// statement from `prepare` still referenced elsewhere keeps the file open until it goes.
    /// Later uses of the connection or its cached statements fail; closing again does nothing.
    public func close() {
        guard let handle else { return }
        for statement in cache.values { statement.finalize() }
        cache = [:]
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    /// Whether the connection is closed.
    public var isClosed: Bool { handle == nil }

    // MARK: Statements

    /// Runs `sql`, one or more statements separated by semicolons, without parameters
    /// (`sqlite3_exec`); rows they return are ignored.
    public func execute(script sql: String) throws(SQLiteError) {
        let connection = try opened(sql)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(connection, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            throw SQLiteError(code: sqlite3_extended_errcode(connection), message: text, path: path, sql: sql)
        }
    }

    /// Prepares `sql`, one statement, for this caller alone (`sqlite3_prepare_v3`); it is
    /// finalized when the last reference to it goes or the connection closes.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(sql: sql, connection: try opened(sql), path: path, persistent: false)
    }

    /// The statement for `sql`, prepared on first use and kept by the connection until it
    /// closes, reset with no parameter bound.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try SQLiteStatement(sql: sql, connection: try opened(sql), path: path, persistent: true)
        cache[sql] = statement
        return statement
    }

    /// Runs the one statement `sql` with `values` bound, prepared once and kept.
    public func execute(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
        try cachedStatement(sql).execute(values)
    }

    /// Reads every row of the one statement `sql`, with `values` bound, with `read`.
    public func rows<T>(
        _ sql: String, _ values: [SQLiteValue] = [], _ read: (SQLiteStatement) -> T
    ) throws(SQLiteError) -> [T] {
        try cachedStatement(sql).rows(values, read)
    }

    /// Reads the first row of the one statement `sql`, with `values` bound, with `read`; nil when
    /// it returns no row.
    public func row<T>(
        _ sql: String, _ values: [SQLiteValue] = [], _ read: (SQLiteStatement) -> T
    ) throws(SQLiteError) -> T? {
        try cachedStatement(sql).row(values, read)
    }

    // MARK: Transactions and state

    /// How a transaction takes its lock (`BEGIN DEFERRED`, `BEGIN IMMEDIATE`).
    public enum TransactionKind: String, Sendable {
        /// The lock is taken by the first read or write: for transactions that only read.
        case deferred = "DEFERRED"
        /// The write lock is taken at once, so that the transaction never fails for another
        /// writer half-way.
        case immediate = "IMMEDIATE"
        /// The file is locked against readers too (the same as immediate in WAL mode).
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws or
    /// when the commit fails, with the error thrown again.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        let result: T
        do {
            result = try body()
            try execute("COMMIT TRANSACTION")
        } catch {
            // A failed statement may have ended the transaction already (SQLITE_FULL does);
            // the error of a rollback that had nothing to undo says nothing more.
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
        return result
    }

    /// Whether a transaction is open (`sqlite3_get_autocommit`).
    public var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Whether the file is open for reading only, asked for or not (`sqlite3_db_readonly`).
    public var isReadOnly: Bool {
        handle.map { sqlite3_db_readonly($0, "main") == 1 } ?? true
    }

    /// The rowid of the last row inserted on this connection (`sqlite3_last_insert_rowid`).
    public var lastInsertedRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// How many rows the last INSERT, UPDATE or DELETE changed (`sqlite3_changes64`).
    public var changes: Int {
        handle.map { Int(sqlite3_changes64($0)) } ?? 0
    }
}

@available(*, unavailable, message: "A connection is used by one thread of control at a time; share an SQLiteDatabase.")
extension SQLiteConnection: Sendable {}
