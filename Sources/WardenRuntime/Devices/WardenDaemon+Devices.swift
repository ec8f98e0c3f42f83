import Logging
import WardenCore

/// Accessory wakes (rule 14) on the host: the device events the source hears become the core's
/// `accessory` events, for the apps whose `accessories` match.
extension DeviceEventSource {
    /// Starts handing each device event to the daemon's loop (`WardenDaemon.deviceEvent`);
    /// where the source cannot listen (no netlink in a container, …), says so once, and the
    /// daemon goes on without accessory wakes.
    func start(posting inbox: DaemonInbox, logger: Logger) {
        let failure = start { action, properties in
            _ = inbox.post(.work { daemon in await daemon.deviceEvent(action, properties: properties) })
        }
        if let failure {
            logger.warning("Accessory wakes are off: \(failure); no device wakes an app.")
        }
    }
}

extension WardenDaemon {
    /// One device event: handed to the core only when an app of the policy matches it, so that
    /// the devices nobody declared cost no event, journal entry or checkpoint.
    func deviceEvent(_ action: String, properties: [String: String]) async {
        let matched = lifecycle.policy.apps.contains { app in app.accessories.contains { $0.matches(properties) } }
        guard matched else { return }
        _ = await process(.accessory(action: action, properties: properties))
        saveCheckpoint(deferrable: true)
    }
}
