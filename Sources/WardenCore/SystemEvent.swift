/// An event about the device or the daemon rather than one app, journaled under
/// `Lifecycle.systemJournalName` so that `explain` can say what the device was doing.
public enum SystemEvent: Sendable, Equatable {
    /// The pressure level changed, with the figures that made it change (nil when the level
    /// was reported directly, by PSI or a scenario step, rather than measured).
    case pressureChanged(from: PressureLevel, to: PressureLevel, figures: MemoryFigures?)
    /// The screen was locked.
    case screenLocked
    /// The screen was unlocked.
    case screenUnlocked
    /// The policy was reloaded: the apps added, removed and changed.
    case policyReloaded(added: [String], removed: [String], changed: [String])
    /// The daemon started (`version`), re-adopting the apps listed.
    case daemonStarted(version: String, readopted: [String])
    /// The daemon stopped, leaving the apps listed running for the next start to re-adopt.
    case daemonStopped(leftRunning: [String])
}

/// Available memory and the thresholds in force at one moment, bytes.
public struct MemoryFigures: Sendable, Equatable {
    public var availableBytes: Int64
    public var totalBytes: Int64
    /// Below this, the level becomes warning.
    public var warningBytes: Int64
    /// Below this, the level becomes critical and the killer acts.
    public var criticalBytes: Int64

    public init(availableBytes: Int64, totalBytes: Int64, warningBytes: Int64, criticalBytes: Int64) {
        self.availableBytes = availableBytes
        self.totalBytes = totalBytes
        self.warningBytes = warningBytes
        self.criticalBytes = criticalBytes
    }
}
