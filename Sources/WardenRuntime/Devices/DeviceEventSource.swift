/// Where the daemon hears of devices added, removed or changed (rule 14's accessory wakes): the
/// kernel's uevent socket on the host (`KernelDeviceEvents`), or nothing in virtual time, where
/// a scenario's `accessory` steps stand for it.
public protocol DeviceEventSource: Sendable {
    /// Starts delivering each device event, its action (udev's `ACTION`) and properties, to
    /// `event`, on a thread of the source's own. Returns nil once it listens, or the sentence
    /// saying why it cannot (no netlink in a container, …): the daemon goes on without it.
    func start(_ event: @escaping @Sendable (_ action: String, _ properties: [String: String]) -> Void) -> String?

    /// Stops delivering events and closes what `start` opened.
    func stop()
}
