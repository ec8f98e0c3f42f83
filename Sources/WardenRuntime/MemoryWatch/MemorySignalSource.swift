public import WardenCgroup

/// A sign from the kernel that makes the memory watch act at once. It decides nothing by itself:
/// the level, and so any kill, follows from what the watch then measures.
public enum MemorySignal: Sendable, Hashable {
    /// Memory pressure somewhere (a PSI trigger, a v1 pressure level, a v1 usage threshold
    /// crossed), named for the log: measure the device now.
    case pressure(String)
    /// The kernel's OOM killer acted in app NAME's group: read its counters now.
    case outOfMemory(app: String)
}

/// Where the memory watch's signals come from: the kernel's notifications on the host
/// (`KernelMemorySignals`), or a test's fake that fires them when it changes what is in memory.
///
/// Every arming happens on the daemon's loop, through this one interface; the signals go to the
/// handler `connect` was given, on any thread.
public protocol MemorySignalSource: Sendable {
    /// Arms the notifications about the whole device and appwarden's root group; returns what
    /// was armed, one phrase each, for the log (empty: the measurements alone detect pressure).
    func armDevice() -> [String]

    /// Arms v1 usage thresholds of `group` at `marks` bytes of usage, replacing those armed
    /// before (none when `marks` is empty); returns false when the kernel refused them.
    func armUsageThresholds(group: String, marks: [UInt64]) -> Bool

    /// Watches app `app`'s group for OOM kills until `unwatch`.
    func watch(app: String, group: AppGroup)

    /// Stops watching app `app`'s group.
    func unwatch(app: String)

    /// Hands every notification from now on to `signal`, on any thread. Called once, before
    /// anything is armed.
    func connect(_ signal: @escaping @Sendable (MemorySignal) -> Void)

    /// Delivers the kernel's notifications until cancelled (a source that calls its handler
    /// from elsewhere returns at once).
    func run() async

    /// Closes every notification.
    func stop()
}
