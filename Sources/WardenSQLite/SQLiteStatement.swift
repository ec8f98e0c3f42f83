internal import CSQLite

/// One prepared SQL statement of a connection (`sqlite3_stmt`): bind its parameters, step
/// through its rows, read their columns, and reset it to run again.
///
/// A statement belongs to the connection that prepared it and is used on the same thread of
/// control as that connection. It is finalized when the connection closes (a cached statement)
/// or when the last reference to it goes (one from `prepare`). Parameters and columns are
/// numbered from 0 here, unlike SQLite's parameters, which start at 1.
public final class SQLiteStatement {
    /// The SQL text of the statement.
    public let sql: String
    /// The database file, for errors.
    let path: String
    /// The connection's handle, for its error messages.
    private let connection: OpaquePointer
    /// The statement; nil once finalized.
    private var handle: OpaquePointer?

    /// Prepares `sql`, which must hold exactly one statement (`sqlite3_prepare_v3`); `persistent`
    /// tells SQLite the statement is kept for reuse.
    init(sql: String, connection: OpaquePointer, path: String, persistent: Bool) throws(SQLiteError) {
        self.sql = sql
        self.path = path
        self.connection = connection
        var prepared: OpaquePointer?
        var code: Int32 = SQLITE_OK
        var trailing = false
        sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            code = sqlite3_prepare_v3(connection, text, -1, flags, &prepared, &tail)
            trailing = tail.map(Self.holdsMoreSQL) ?? false
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(prepared)
            throw SQLiteError(code: code, handle: connection, path: path, sql: sql)
        }
        guard let prepared, !trailing else {
            sqlite3_finalize(prepared)
            let problem = prepared == nil ? "the text holds no SQL statement" : "the text holds more than one statement"
            throw SQLiteError(code: SQLITE_MISUSE, message: problem, path: path, sql: sql)
        }
        handle = prepared
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Whether the text after a statement holds anything but white space and semicolons.
    private static func holdsMoreSQL(_ tail: UnsafePointer<CChar>) -> Bool {
        var pointer = tail
        while pointer.pointee != 0 {
            switch UInt8(bitPattern: pointer.pointee) {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: ";"):
                pointer += 1
            default:
                return true
            }
        }
        return false
    }

    /// Finalizes the statement (`sqlite3_finalize`); later uses fail as on a closed connection.
    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    /// The statement's handle, or the error of a statement whose connection closed.
    private func prepared() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError.closed(path: path, sql: sql) }
        return handle
    }

    /// The error for `code`, as the connection reports it.
    private func failure(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, handle: connection, path: path, sql: sql)
    }

    // MARK: Parameters

    /// How many parameters the statement has (`sqlite3_bind_parameter_count`).
    public var parameterCount: Int {
        handle.map { Int(sqlite3_bind_parameter_count($0)) } ?? 0
    }

    /// Binds an integer to parameter `index` (`sqlite3_bind_int64`).
    public func bind(_ value: Int64, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_int64(try prepared(), Int32(index + 1), value))
    }

    /// Binds a floating-point number to parameter `index` (`sqlite3_bind_double`).
    public func bind(_ value: Double, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_double(try prepared(), Int32(index + 1), value))
    }

    /// Binds text to parameter `index` (`sqlite3_bind_text64`, SQLite taking a copy); the empty
    /// string is text, not null, and text holding NUL characters is kept whole.
    public func bind(_ value: String, at index: Int) throws(SQLiteError) {
        let statement = try prepared()
        var text = value
        let code = text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text64(statement, Int32(index + 1), "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                sqlite3_bind_text64(
                    statement, Int32(index + 1), characters, UInt64(bytes.count), csqlite_transient(),
                    UInt8(SQLITE_UTF8))
            }
        }
        try check(code)
    }

    /// Binds a blob to parameter `index` (`sqlite3_bind_blob64`, SQLite taking a copy); an empty
    /// blob is a blob of length 0, not null.
    public func bind(blob value: [UInt8], at index: Int) throws(SQLiteError) {
        let statement = try prepared()
        let code = value.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(statement, Int32(index + 1), 0)
            }
            return sqlite3_bind_blob64(
                statement, Int32(index + 1), base, UInt64(bytes.count), csqlite_transient())
        }
        try check(code)
    }

    /// Binds null to parameter `index` (`sqlite3_bind_null`).
    public func bindNull(at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_null(try prepared(), Int32(index + 1)))
    }

    /// Binds `value` to parameter `index` with the bind of its type.
    public func bind(_ value: SQLiteValue, at index: Int) throws(SQLiteError) {
        switch value {
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let blob): try bind(blob: blob, at: index)
        case .null: try bindNull(at: index)
        }
    }

    /// Resets the statement and binds `values` to its parameters, in order; there must be one
    /// value for each parameter.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        reset()
        guard values.count == parameterCount else {
            throw SQLiteError(
                code: SQLITE_RANGE,
                message: "the statement has \(parameterCount) parameters and was given \(values.count) values",
                path: path, sql: sql)
        }
        for (index, value) in values.enumerated() { try bind(value, at: index) }
    }

    private func check(_ code: Int32) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw failure(code) }
    }

    // MARK: Running

    /// Runs the statement to its next row (`sqlite3_step`): true when a row is ready to read,
    /// false when the statement has run to its end.
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(try prepared())
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(code)
        }
    }

    /// Makes the statement ready to run again from its start, with no parameter bound
    /// (`sqlite3_reset`, `sqlite3_clear_bindings`); a statement left reset holds no lock.
    public func reset() {
        guard let handle else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values`, runs the statement to its end and resets it.
    public func execute(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        defer { reset() }
        while try step() {}
    }

    /// Binds `values`, reads every row with `read` and resets the statement.
    public func rows<T>(_ values: [SQLiteValue] = [], _ read: (SQLiteStatement) -> T) throws(SQLiteError) -> [T] {
        try bind(values)
        defer { reset() }
        var rows: [T] = []
        while try step() { rows.append(read(self)) }
        return rows
    }

    /// Binds `values`, reads the first row with `read`, if there is one, and resets the statement.
    public func row<T>(_ values: [SQLiteValue] = [], _ read: (SQLiteStatement) -> T) throws(SQLiteError) -> T? {
        try bind(values)
        defer { reset() }
        return try step() ? read(self) : nil
    }

    // MARK: Columns of the current row

    /// How many columns a row has (`sqlite3_column_count`).
    public var columnCount: Int {
        handle.map { Int(sqlite3_column_count($0)) } ?? 0
    }

    /// The name of column `index` (`sqlite3_column_name`).
    public func columnName(at index: Int) -> String {
        guard let handle, let name = sqlite3_column_name(handle, Int32(index)) else { return "" }
        return String(cString: name)
    }

    /// Whether column `index` of the current row is null.
    public func isNull(at index: Int) -> Bool {
        guard let handle else { return true }
        return sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` of the current row as an integer (`sqlite3_column_int64`; null reads as 0).
    public func int64(at index: Int) -> Int64 {
        guard let handle else { return 0 }
        return sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` of the current row as a floating-point number (`sqlite3_column_double`;
    /// null reads as 0).
    public func double(at index: Int) -> Double {
        guard let handle else { return 0 }
        return sqlite3_column_double(handle, Int32(index))
    }

    /// Column `index` of the current row as text (`sqlite3_column_text`; null reads as "").
    public func string(at index: Int) -> String {
        guard let handle, let text = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as bytes (`sqlite3_column_blob`; null reads as none).
    public func blob(at index: Int) -> [UInt8] {
        guard let handle, let bytes = sqlite3_column_blob(handle, Int32(index)) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Column `index` of the current row as the value of the type SQLite holds it in.
    public func value(at index: Int) -> SQLiteValue {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(string(at: index))
        case SQLITE_BLOB: return .blob(blob(at: index))
        default: return .null
        }
    }
}

@available(*, unavailable, message: "A statement is used by one thread of control at a time, with its connection.")
extension SQLiteStatement: Sendable {}
