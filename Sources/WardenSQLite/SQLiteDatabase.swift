import Synchronization

/// An SQLite file shared by every task of the process: one connection writes, one write at a
/// time, and reads run beside it, each on a read-only connection of its own (in WAL mode a read
/// sees the last commit and neither waits for a write nor holds one up).
///
/// Every method is synchronous and may be called from any task; one blocks while another task
/// holds the connection it needs. Calls do not nest: a `write` or `read` inside another on the
/// same database waits for itself.
public final class SQLiteDatabase: Sendable {
    /// The database file.
    public let path: String
    private let configuration: SQLiteConfiguration
    /// The connection that writes; nil once closed.
    private let writer: Mutex<SQLiteConnection?>
    /// The connections that read, each opened at its first use.
    private let readers: [ReaderSlot]
    /// Which reader a read waits for when every one is in use.
    private let nextReader = Atomic<Int>(0)

    /// One reading connection and its lock.
    private final class ReaderSlot: Sendable {
        enum State {
            case unopened
            case open(SQLiteConnection)
            case closed
        }

        let state = Mutex(State.unopened)
    }

    /// Opens the file at `path` with `configuration` for its writer and the same, read-only, for
    /// its readers, of which at most `maximumReaders` are open at once.
    ///
    /// Only the writer opens here; a reader opens at the first read that needs it.
    public init(
        path: String, configuration: SQLiteConfiguration, maximumReaders: Int = 4
    ) throws(SQLiteError) {
        self.path = path
        self.configuration = configuration
        writer = Mutex(try SQLiteConnection(path: path, configuration: configuration))
        readers = (0..<max(1, maximumReaders)).map { _ in ReaderSlot() }
    }

    /// Runs `body` on the writing connection in a transaction that takes the write lock at once
    /// (`BEGIN IMMEDIATE`): committed when it returns, rolled back when it throws.
    public func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writeWithoutTransaction { connection in
            try connection.transaction(.immediate) { try body(connection) }
        }
    }

    /// Runs `body` on the writing connection outside any transaction: for statements that
    /// cannot run inside one (some PRAGMAs) or that manage their own.
    public func writeWithoutTransaction<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { connection in
            guard let connection else { throw SQLiteError.closed(path: path) }
            return try body(connection)
        }
    }

    /// Runs `body` on a reading connection in a transaction (`BEGIN DEFERRED`), so that all its
    /// statements see the same commit.
    public func read<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withReader { connection in
            try connection.transaction(.deferred) { try body(connection) }
        }
    }

    /// Runs `body` on the first reading connection free, or waits for one when all are in use.
    private func withReader<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        for slot in readers {
            if let result = try slot.state.withLockIfAvailable({ state in try use(&state, body) }) {
                return result
            }
        }
        let index = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue
        let slot = readers[(index % readers.count + readers.count) % readers.count]
        return try slot.state.withLock { state in try use(&state, body) }
    }

    /// Runs `body` on the connection of a reader slot, opened at its first use.
    private func use<T: Sendable>(
        _ state: inout sending ReaderSlot.State, _ body: (SQLiteConnection) throws -> T
    ) throws -> T {
        if case .unopened = state {
            state = .open(try SQLiteConnection(path: path, configuration: configuration.reader))
        }
        guard case .open(let connection) = state else { throw SQLiteError.closed(path: path) }
        return try body(connection)
    }

    /// Closes every connection, waiting for those in use; later calls fail with an `SQLiteError`.
    /// The writer closes last, so that SQLite folds the write-ahead log into the file and removes it.
    public func close() {
        for slot in readers {
            slot.state.withLock { state in
                if case .open(let connection) = state { connection.close() }
                state = .closed
            }
        }
        writer.withLock { connection in
            connection?.close()
            connection = nil
        }
    }
}
