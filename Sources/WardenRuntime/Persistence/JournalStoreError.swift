import WardenSQLite

/// A failure of the journal database, naming the file, what was being done and the cause.
public struct JournalStoreError: Error, Sendable, CustomStringConvertible {
    /// The SQLite file.
    public var path: String
    /// A full sentence saying what failed.
    public var message: String
    /// The underlying error, in words: SQLite's code and message, and the statement if any.
    public var cause: String

    public init(path: String, message: String, cause: any Error) {
        self.path = path
        self.message = message
        if let error = cause as? SQLiteError, error.path == path {
            // The file is named once, at the front.
            self.cause = error.reason
        } else {
            self.cause = String(describing: cause)
        }
    }

    public var description: String { "Journal \"\(path)\": \(message) (\(cause))" }
}
