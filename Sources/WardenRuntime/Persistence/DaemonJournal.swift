import Logging
import WardenAPI

/// The daemon's journal as it writes it: the durable store, the followers of the event stream,
/// and the entries an event makes, written together once its actions are carried out (so that a
/// kill for memory never waits for the journal).
struct DaemonJournal {
    let store: any WardenJournal
    var subscribers = EventSubscribers()
    /// The entries of the event being carried out; nil outside an event (entries go in at once).
    private var batch: [NewJournalEntry]?
    /// Whether an event changed the model since the checkpoint was last saved.
    var checkpointDue = false
    /// The footprint each app was last journaled with as an input (a `footprint` step) since the
    /// policy came into force.
    var footprintsJournaled: [String: String] = [:]
    /// The checkpoint's text, kept encoded record by record between saves.
    var checkpointEncoder = CheckpointEncoder()
    /// When the checkpoint was last saved, on the daemon's clock.
    var lastCheckpointSave: Duration?
    /// Whether the last save of the checkpoint failed (said once in the log until one succeeds).
    var checkpointFailing = false
    /// Entries the store refused (its filesystem full, say), oldest first: written before the
    /// next ones once it takes them again, at most `unwrittenLimit` of them.
    private(set) var unwritten: [NewJournalEntry] = []
    /// How many entries were lost because more than `unwrittenLimit` waited.
    private var lost = 0
    /// How many refused entries are kept in memory until the store takes them again.
    static let unwrittenLimit = 10_000

    init(store: any WardenJournal) {
        self.store = store
    }

    /// Collects entries until `flush`.
    mutating func beginEvent() {
        batch = []
    }

    /// Appends `entry`: with the event's others, or at once outside an event.
    mutating func append(_ entry: NewJournalEntry, logger: Logger) {
        if batch != nil {
            batch?.append(entry)
            return
        }
        write([entry], logger: logger)
    }

    /// Writes the event's entries in one transaction and publishes them.
    mutating func flush(logger: Logger) {
        guard let entries = batch else { return }
        batch = nil
        write(entries, logger: logger)
    }

    /// Writes the entries refused before and `entries`, in one transaction, and publishes them.
    /// A refusal keeps them for the next write and is said once until a write succeeds: the
    /// daemon goes on supervising whatever becomes of its journal.
    private mutating func write(_ entries: [NewJournalEntry], logger: Logger) {
        guard !entries.isEmpty else { return }
        let pending = unwritten + entries
        do {
            for entry in try store.append(pending) { subscribers.publish(entry) }
            if !unwritten.isEmpty || lost > 0 {
                let losses = lost > 0 ? ", and \(lost) older ones were lost" : ""
                logger.notice(
                    "The journal is written again; the \(unwritten.count) entries kept in memory meanwhile are in it\(losses)."
                )
            }
            unwritten = []
            lost = 0
        } catch {
            if unwritten.isEmpty && lost == 0 {
                let limit = Self.unwrittenLimit
                logger.error(
                    "Could not write to the journal; appwarden goes on supervising and keeps up to \(limit) entries in memory until it can (said once): \(error)"
                )
            }
            unwritten = pending
            if unwritten.count > Self.unwrittenLimit {
                lost += unwritten.count - Self.unwrittenLimit
                unwritten.removeFirst(unwritten.count - Self.unwrittenLimit)
            }
        }
    }
}
