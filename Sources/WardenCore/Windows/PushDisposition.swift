/// What became of an accepted push.
public enum PushDisposition: String, Sendable, Equatable, CaseIterable {
    /// Delivered now (the app was woken, launched or was already running).
    case delivered
    /// Held until the app's next push slot (newest kept).
    case coalesced
    /// Kept for the app's next launch (it was force-quit).
    case pendingLaunch
    /// Held until memory can take the wake (tried again every minute; newest kept).
    case waitingForMemory
    /// Accepted but wakes nothing (no `content-available`).
    case notWoken
    /// Dropped: this notification id was delivered before.
    case duplicate
}
