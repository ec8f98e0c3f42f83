internal import CSQLite

/// A failure reported by SQLite: its result code and message, the database file, and the
/// statement being run when there was one.
///
/// Reads as `SQLite error 19 (SQLITE_CONSTRAINT) in "/var/lib/appwarden/appwarden.sqlite": the
/// journal is append-only; the statement was: DELETE FROM journal`.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's extended result code (`SQLITE_CONSTRAINT_TRIGGER`, 1811, say).
    public var code: Int32
    /// SQLite's message for the failure (`sqlite3_errmsg`), or its text for the code.
    public var message: String
    /// The database file.
    public var path: String
    /// The SQL text being prepared or run, if any.
    public var sql: String?

    public init(code: Int32, message: String, path: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.sql = sql
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, 19, for any constraint failure).
    public var primaryCode: Int32 { code & 0xff }

    /// The name of the primary result code, such as `SQLITE_FULL`.
    public var codeName: String {
        Self.names[Int(primaryCode)] ?? "SQLITE_\(primaryCode)"
    }

    /// The failure without the file: `SQLite error 13 (SQLITE_FULL): database or disk is full`,
    /// and the statement if any.
    public var reason: String {
        var text = "SQLite error \(code) (\(codeName)): \(message)"
        if let sql { text += "; the statement was: \(sql)" }
        return text
    }

    public var description: String {
        var text = "SQLite error \(code) (\(codeName)) in \"\(path)\": \(message)"
        if let sql { text += "; the statement was: \(sql)" }
        return text
    }

    /// The names of SQLite's primary result codes, by code.
    private static let names: [Int: String] = [
        1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT", 5: "SQLITE_BUSY",
        6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR",
        11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN",
        15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG",
        19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS",
        23: "SQLITE_AUTH", 24: "SQLITE_FORMAT", 25: "SQLITE_RANGE", 26: "SQLITE_NOTADB",
    ]
}

extension SQLiteError {
    /// The error the connection `handle` reports for `code` (`sqlite3_errmsg`, which names the
    /// failure more precisely than the code's own text when the connection reported it).
    init(code: Int32, handle: OpaquePointer?, path: String, sql: String? = nil) {
        let message: String
        if let handle, sqlite3_extended_errcode(handle) & 0xff == code & 0xff, let text = sqlite3_errmsg(handle) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        self.init(code: code, message: message, path: path, sql: sql)
    }

    /// The error for a connection used after `close()`.
    static func closed(path: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: "the database connection is closed", path: path, sql: sql)
    }
}
