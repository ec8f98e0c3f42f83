import WardenAPI
import WardenCore

/// The checkpoint's JSON text, written after every job that changed the model: it keeps each
/// app's record and each running app's record encoded, and encodes again only those that
/// changed since the last save. With a thousand suspended apps, encoding them all took tens of
/// milliseconds per save, in the daemon's loop.
///
/// The text is byte for byte what `SortedJSONEncoder.encode(checkpoint)` writes.
struct CheckpointEncoder {
    private var apps = KeptEncodings<LifecycleCheckpoint.AppEntry>()
    private var running = KeptEncodings<RunningAppRecord>()

    /// The JSON text of `checkpoint`.
    ///
    /// - Throws: `SortedJSONEncoder.Failure` for a value JSON cannot hold.
    mutating func encode(_ checkpoint: WardenCheckpoint) throws -> [UInt8] {
        let appFragments = try apps.fragments(of: checkpoint.lifecycle.appEntries, key: \.name)
        let runningFragments = try running.fragments(of: checkpoint.running, key: \.app)
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
