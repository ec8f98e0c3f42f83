import WardenCore

extension LifecycleAction {
    /// `actions` in the order they are carried out: the core's order, except that a kill for
    /// memory comes first. The device waits for what the victim frees; the records, status
    /// changes, warnings and log lines that come with the kill (a log line is a write to the
    /// journal's socket, which a device short of memory may be slow to read) follow it. The
    /// journal's entries keep the core's order: they are written together once the job is done,
    /// and a kill writes none.
    static func inCarryingOutOrder(_ actions: [LifecycleAction]) -> [LifecycleAction] {
        func killsForMemory(_ action: LifecycleAction) -> Bool {
            if case .kill(_, .memoryPressure) = action { true } else { false }
        }
        guard actions.dropFirst().contains(where: killsForMemory) else { return actions }
        return actions.filter(killsForMemory) + actions.filter { !killsForMemory($0) }
    }
}

extension AppMessage {
    /// The name a policy's `signals` table gives this message's kind; nil for kinds it cannot map.
    var signalKind: String? {
        switch self {
        case .stateChanged: nil
        case .expirationWarning: "expiration_warning"
        case .fetchStart: "fetch_start"
        case .pushPayload: "push_payload"
        case .accessoryEvent: "accessory_event"
        case .memoryWarning: "memory_warning"
        case .cpuWarning: "cpu_warning"
        case .activitiesEnded: "activities_ended"
        case .saveState: "save_state"
        }
    }
}
