import WardenAPI
import WardenCore

/// The checkpoint's JSON text, written after every job that changed the model: it keeps each
/// app's record and each running app's record encoded, and encodes again only those that
/// changed since the last save. With a thousand suspended apps, encoding them all took tens of
/// milliseconds per save, in the daemon's loop.
///
/// The text is byte for byte what `SortedJSONEncoder.encode(checkpoint)` writes.
struct CheckpointEncoder {
    private var apps: [String: (entry: LifecycleCheckpoint.AppEntry, json: [UInt8])] = [:]
    private var running: [String: (record: RunningAppRecord, json: [UInt8])] = [:]

    /// The JSON text of `checkpoint`.
    ///
    /// - Throws: `SortedJSONEncoder.Failure` for a value JSON cannot hold.
    mutating func encode(_ checkpoint: WardenCheckpoint) throws -> [UInt8] {
        var appFragments: [SortedJSONEncoder.Fragment] = []
        var keptApps: [String: (entry: LifecycleCheckpoint.AppEntry, json: [UInt8])] = [:]
        for entry in checkpoint.lifecycle.appEntries {
            let json: [UInt8]
            if let kept = apps[entry.name], kept.entry == entry {
                json = kept.json
            } else {
                json = try SortedJSONEncoder.encode(entry)
            }
            keptApps[entry.name] = (entry, json)
            appFragments.append(SortedJSONEncoder.Fragment(bytes: json))
        }
        apps = keptApps
        var runningFragments: [SortedJSONEncoder.Fragment] = []
        var keptRunning: [String: (record: RunningAppRecord, json: [UInt8])] = [:]
        for record in checkpoint.running {
            let json: [UInt8]
            if let kept = running[record.app], kept.record == record {
                json = kept.json
            } else {
                json = try SortedJSONEncoder.encode(record)
            }
            keptRunning[record.app] = (record, json)
            runningFragments.append(SortedJSONEncoder.Fragment(bytes: json))
        }
        running = keptRunning
        return try SortedJSONEncoder.encode(
            Text(
                lifecycle: Lifecycle(checkpoint: checkpoint.lifecycle, apps: appFragments),
                running: runningFragments, deviceTokens: checkpoint.deviceTokens,
                recentKills: checkpoint.recentKills, bootTime: checkpoint.bootTime))
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
