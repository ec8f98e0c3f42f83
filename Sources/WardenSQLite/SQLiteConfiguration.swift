/// How a connection opens its file and the settings it applies before its first use.
public struct SQLiteConfiguration: Sendable, Equatable {
    /// The journal modes a connection can ask for (`PRAGMA journal_mode`).
    public enum JournalMode: String, Sendable {
        case delete
        case truncate
        case persist
        case memory
        case wal
        case off
    }

    /// How often SQLite waits for data to reach the disk (`PRAGMA synchronous`).
    public enum Synchronous: String, Sendable {
        case off = "OFF"
        case normal = "NORMAL"
        case full = "FULL"
        case extra = "EXTRA"
    }

    /// Whether the connection only reads (`SQLITE_OPEN_READONLY`).
    public var readOnly = false
    /// Whether a missing file is created (`SQLITE_OPEN_CREATE`); ignored when `readOnly`.
    public var create = true
    /// How long a statement waits for another process's lock before it fails with
    /// `SQLITE_BUSY` (`sqlite3_busy_timeout`).
    public var busyTimeout: Duration = .seconds(5)
    /// The journal mode to switch the file to, or nil to leave it as it is. Opening fails when
    /// the file cannot take the mode.
    public var journalMode: JournalMode?
    /// The synchronous setting, or nil to leave SQLite's default (`FULL`).
    public var synchronous: Synchronous?
    /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`).
    public var foreignKeys = true

    public init(
        readOnly: Bool = false, create: Bool = true, busyTimeout: Duration = .seconds(5),
        journalMode: JournalMode? = nil, synchronous: Synchronous? = nil, foreignKeys: Bool = true
    ) {
        self.readOnly = readOnly
        self.create = create
        self.busyTimeout = busyTimeout
        self.journalMode = journalMode
        self.synchronous = synchronous
        self.foreignKeys = foreignKeys
    }

    /// This configuration for a connection that only reads the same file: no journal mode or
    /// synchronous setting, which only a writer applies.
    public var reader: SQLiteConfiguration {
        var reader = self
        reader.readOnly = true
        reader.create = false
        reader.journalMode = nil
        reader.synchronous = nil
        return reader
    }
}
