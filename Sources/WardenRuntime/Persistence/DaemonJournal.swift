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
    var footprintsJournaled: [String: Int64] = [:]
    /// The checkpoint's text, kept encoded record by record between saves.
    var checkpointEncoder = CheckpointEncoder()

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

    private func write(_ entries: [NewJournalEntry], logger: Logger) {
        guard !entries.isEmpty else { return }
        do {
            for entry in try store.append(entries) { subscribers.publish(entry) }
        } catch {
            logger.error("Could not write to the journal: \(error)")
        }
    }
}
