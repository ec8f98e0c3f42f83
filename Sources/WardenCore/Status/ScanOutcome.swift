/// What the watchdog's scan of an app's processes found (§1.5).
public enum ScanOutcome: String, Sendable, Hashable, CaseIterable {
    /// Still running in the foreground.
    case foreground
    /// Stopped, frozen or gone.
    case background
    /// The scan itself failed.
    case error
}
