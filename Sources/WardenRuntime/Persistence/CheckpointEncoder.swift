import WardenAPI
import WardenCore

/// The checkpoint's text, written after every job that changed the model: it keeps each
/// app's record and each running app's record encoded, encodes again only those that changed
/// since the last save, and hands the journal only the records that differ from those it
/// saved last (`CheckpointText`). With a thousand suspended apps, encoding them all took tens of
/// milliseconds per save, and writing the whole text (about 600 KB) most of what a save cost.
///
/// The text assembled from what the journal keeps is byte for byte what
/// `SortedJSONEncoder.encode(checkpoint)` writes.
struct CheckpointEncoder {
    private var apps = KeptEncodings<AppRecord>()
    private var running = KeptEncodings<RunningAppRecord>()
    /// Each section's records as the journal holds them since the last save that succeeded, in
    /// order; nil until one has (the journal may hold records of an earlier daemon).
    private var inJournal: [CheckpointText.Section: [SavedRecord]]?
    /// The records of the text last encoded, which become `inJournal` once the journal took it.
    private var encoded: [CheckpointText.Section: [SavedRecord]] = [:]

    private struct SavedRecord {
        let name: String
        let bytes: [UInt8]
    }

    /// The text of `checkpoint`, with the records that changed since the last save. Call
    /// `saved()` once the journal has taken it.
    ///
    /// - Throws: `SortedJSONEncoder.Failure` for a value JSON cannot hold.
    mutating func encode(_ checkpoint: WardenCheckpoint) throws -> CheckpointText {
        let appRecords = checkpoint.lifecycle.appRecords
        let appNames = appRecords.map(\.name)
        let appFragments = try apps.fragments(of: appRecords, keys: appNames)
        let runningNames = checkpoint.running.map(\.app)
        let runningFragments = try running.fragments(of: checkpoint.running, keys: runningNames)
        let outline = try SortedJSONEncoder.encode(
            Text(
                lifecycle: Lifecycle(checkpoint: checkpoint.lifecycle, apps: [Self.mark(.apps)]),
                running: [Self.mark(.running)], deviceTokens: checkpoint.deviceTokens,
                recentKills: checkpoint.recentKills, bootTime: checkpoint.bootTime))
        var text = CheckpointText(
            outline: String(decoding: outline, as: UTF8.self), changed: [], complete: inJournal == nil)
        encoded = [:]
        for (section, names, fragments) in [
            (CheckpointText.Section.apps, appNames, appFragments), (.running, runningNames, runningFragments),
        ] {
            let now = zip(names, fragments).map { SavedRecord(name: $0, bytes: $1.bytes) }
            encoded[section] = now
            text.changed += Self.changes(in: section, from: inJournal?[section] ?? [], to: now)
            if !text.complete { text.removed += Self.removals(in: section, from: inJournal?[section] ?? [], to: now) }
        }
        return text
    }

    /// The journal took the text last encoded: the next encoding lists what changed since.
    mutating func saved() {
        inJournal = encoded
    }

    /// The records of `now` that `before` does not hold at the same place with the same text:
    /// a record that moved is written again at its new place.
    private static func changes(
        in section: CheckpointText.Section, from before: [SavedRecord], to now: [SavedRecord]
    ) -> [CheckpointText.Record] {
        var changed: [CheckpointText.Record] = []
        for (position, record) in now.enumerated() {
            // A record kept encoded is the same array as the one saved: compared at once.
            if position < before.count, before[position].name == record.name, before[position].bytes == record.bytes {
                continue
            }
            changed.append(
                CheckpointText.Record(
                    section: section, name: record.name, position: position,
                    json: String(decoding: record.bytes, as: UTF8.self)))
        }
        return changed
    }

    /// The records of `before` that `now` no longer holds.
    private static func removals(
        in section: CheckpointText.Section, from before: [SavedRecord], to now: [SavedRecord]
    ) -> [CheckpointText.Removal] {
        if before.count == now.count, zip(before, now).allSatisfy({ $0.name == $1.name }) { return [] }
        let names = Set(now.map(\.name))
        return before.filter { !names.contains($0.name) }.map {
            CheckpointText.Removal(section: section, name: $0.name)
        }
    }

    /// A section's mark, written where its records go.
    private static func mark(_ section: CheckpointText.Section) -> SortedJSONEncoder.Fragment {
        SortedJSONEncoder.Fragment(bytes: section.mark)
    }

    /// `WardenCheckpoint` with its records as fragments; the same keys.
    private struct Text: Encodable {
        let lifecycle: Lifecycle
        let running: [SortedJSONEncoder.Fragment]
        let deviceTokens: [String: String]?
        let recentKills: [KillInfo]?
        let bootTime: WardenClock.BootTime?
    }

    /// `LifecycleCheckpoint` with its records as fragments.
    private struct Lifecycle: Encodable {
        let checkpoint: LifecycleCheckpoint
        let apps: [SortedJSONEncoder.Fragment]

        func encode(to encoder: any Encoder) throws {
            try checkpoint.encode(to: encoder, apps: apps)
        }
    }
}
