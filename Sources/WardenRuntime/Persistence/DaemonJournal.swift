import FoundationEssentials
import Logging
import WardenAPI
import WardenCore
import WardenScenario

/// The daemon's journal as it writes it: the durable store, the followers of the event stream,
/// and the entries an event makes, written together once its actions are carried out (so that a
/// kill for memory never waits for the journal).
struct DaemonJournal {
    let store: any WardenJournal
    var subscribers = EventSubscribers()
    /// The entries of the event being carried out; nil outside an event (entries go in at once).
    private var batch: [NewJournalEntry]?
    /// Whether an event changed the model since the checkpoint was last saved.
    var checkpointChanged = false
    /// The footprint each app was last journaled with as an input (a `footprint` step) since the
    /// policy came into force.
    var footprintsJournaled: [String: String] = [:]
    /// The checkpoint's text, kept encoded record by record between saves.
    private var checkpointEncoder = CheckpointEncoder()
    /// When the checkpoint was last saved, on the daemon's clock.
    private var lastCheckpointSave: Duration?
    /// Whether the last save of the checkpoint failed (said once in the log until one succeeds).
    private var checkpointFailing = false
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

    /// How often, at most, a job no caller waits for saves the checkpoint under memory pressure.
    static let checkpointSpacingUnderPressure = Duration.milliseconds(250)

    /// Whether the checkpoint is to be saved at `elapsed` (the daemon's clock): when an event
    /// changed the model since it was last saved, after each job and before a caller hears the
    /// answer to its event. While memory is at `warning` or `critical` (`underPressure`) the
    /// loop's next job may be the sample that kills, so a job no caller waits for (`deferrable`)
    /// saves it at most every `checkpointSpacingUnderPressure`; the watch's samples, every 10 ms
    /// then, save it soon after.
    func checkpointDue(deferrable: Bool, underPressure: Bool, at elapsed: Duration) -> Bool {
        guard checkpointChanged else { return false }
        guard deferrable, underPressure, let last = lastCheckpointSave else { return true }
        return elapsed - last >= Self.checkpointSpacingUnderPressure
    }

    /// Saves `checkpoint` at `elapsed` (the daemon's clock; `wallMillis` on the wall clock) in
    /// one row: the one source a restarted daemon re-adopts from. A save that fails is said
    /// once in the log until one succeeds, and the next job tries again.
    mutating func saveCheckpoint(
        _ checkpoint: WardenCheckpoint, at elapsed: Duration, wallMillis: Int64, logger: Logger
    ) {
        checkpointChanged = false
        lastCheckpointSave = elapsed
        do {
            // Only the records that changed are encoded again and written: with a thousand
            // apps, encoding them all cost tens of milliseconds per save, and writing them all
            // about 600 KB.
            let text = try checkpointEncoder.encode(checkpoint)
            try store.saveCheckpoint(text, wallTimeMillis: wallMillis)
            checkpointEncoder.saved()
            if checkpointFailing {
                checkpointFailing = false
                logger.notice("The checkpoint is saved again.")
            }
        } catch {
            // Said once: a full filesystem would otherwise fill the log with it after every job.
            if !checkpointFailing {
                logger.error(
                    "Could not save the checkpoint; the last one saved stays (said once until a save succeeds): \(error)"
                )
            }
            checkpointFailing = true
            checkpointChanged = true
        }
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

    /// Appends an entry that is not a core record (a message, a status, a daemon record, an
    /// input) made at `wallMillis`.
    mutating func record(app: String, _ event: AppEvent, wallMillis: Int64, logger: Logger) {
        append(NewJournalEntry(app: app, event: event, wallTimeMillis: wallMillis), logger: logger)
    }

    /// Journals what a replay of the event `handled` needs (`JournalInput.inputs`; the event in
    /// its replayable form), before the records of what the core did with it: the killer's
    /// candidates whose footprints changed since they were last journaled (a replay keeps each
    /// footprint until a step changes it).
    mutating func recordInputs(of handled: HandledEvent, wallMillis: Int64, logger: Logger) {
        let event = handled.replayable
        let changed = handled.candidates.filter { footprintsJournaled[$0.app] != JournalInput.footprintStep(of: $0) }
        let inputs = JournalInput.inputs(
            for: event, actions: handled.actions, endsOnItsOwn: handled.endsOnItsOwn, candidates: changed)
        if !inputs.isEmpty {
            for candidate in changed {
                footprintsJournaled[candidate.app] = JournalInput.footprintStep(of: candidate)
            }
            if case .footprint(let app, let bytes, let swapped, let inRAM) = event {
                footprintsJournaled[app] =
                    swapped.map {
                        JournalInput.footprintStep(app: app, footprint: bytes, swapped: $0, inRAM: inRAM ?? $0)
                    } ?? JournalInput.stepText(of: event)
            }
        }
        for input in inputs {
            record(app: event.app ?? JournalEntry.systemApp, .input(input), wallMillis: wallMillis, logger: logger)
        }
    }

    /// Journals the policy that comes into force now, read from its file at `path`, for
    /// `export`; the footprints are journaled afresh under it. A policy that cannot be read is
    /// said in the log when it was read from that file (`fromFile`) or the file exists.
    mutating func recordPolicy(path: String, fromFile: Bool, wallMillis: Int64, logger: Logger) {
        footprintsJournaled = [:]
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            // A daemon given its policy in code has no file to journal, unless one was put there.
            if fromFile || FileManager.default.fileExists(atPath: path) {
                logger.warning("Could not read the policy \"\(path)\" to journal it; an export will lack it.")
            }
            return
        }
        record(
            app: JournalEntry.systemApp, .input(.policy(path: path, text: text)), wallMillis: wallMillis, logger: logger
        )
    }

    /// Whether the core's answer to a job that began with `event` changes what the checkpoint
    /// must hold. Every event but a query and a measurement does. A query (`time-remaining`) does
    /// only when the core did more than answer it: a shell app may ask in a loop, and with a
    /// thousand apps each save costs the daemon milliseconds and a sync of its disk. A
    /// measurement (a footprint, a memory sample) does only when it starts, stops, freezes or
    /// thaws a process: its level, footprints and warnings are measured again after a restart,
    /// and saving them every 10 ms near a threshold would stand in the way of the kill the next
    /// sample brings.
    static func changesCheckpoint(_ actions: [LifecycleAction], of event: LifecycleEvent) -> Bool {
        if event.isQuery {
            return actions.contains { action in
                if case .reply = action { false } else { true }
            }
        }
        guard event.isMeasurement else { return true }
        return actions.contains { action in
            switch action {
            case .spawn, .freeze, .thaw, .terminate, .kill: true
            default: false
            }
        }
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
