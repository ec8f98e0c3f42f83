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
