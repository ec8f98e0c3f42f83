public import WardenCore
public import WardenScenario

/// What a simulated app does by itself with a message on its event stream, from its facts: the
/// same in the simulator and in a replay through the daemon, so that both play one app.
public enum AppReaction: Sendable, Equatable {
    /// The app makes `call` `after` from now, if the same launch still runs then.
    case call(LifecycleEvent, after: Duration)
}

extension AppFacts {
    /// What app `app` does with `message`: completes its fetch or push window as `on_fetch` and
    /// `on_push` say, and its accessory window as `on_push` says (a payload or an accessory event handed over in the foreground opens no window, so there is
    /// nothing to complete), and ends the tasks named in its expiration call unless
    /// `on_expiration = "ignore"`.
    public func reactions(to message: AppMessage, of app: String) -> [AppReaction] {
        switch message {
        case .fetchStart:
            guard case .complete(let result, let delay) = onFetch else { return [] }
            return [.call(.completeFetch(app: app, result: result), after: delay)]
        case .pushPayload(_, _, let window):
            guard window > .zero, case .complete(let result, let delay) = onPush else { return [] }
            return [.call(.completePush(app: app, result: result), after: delay)]
        case .accessoryEvent(_, _, let window):
            guard window > .zero, case .complete(_, let delay) = onPush else { return [] }
            return [.call(.completeAccessory(app: app), after: delay)]
        case .expirationWarning(let taskIDs, _):
            guard onExpiration == .endTasks else { return [] }
            return taskIDs.map { .call(.endTask(app: app, taskID: $0), after: .zero) }
        case .stateChanged, .memoryWarning, .cpuWarning, .activitiesEnded, .saveState:
            return []
        }
    }
}

extension LifecycleError {
    /// The refusal of a scenario step that makes an app's process do something (`crash`,
    /// `exit`) while it runs none.
    public static func notRunning(_ app: String, toDo doing: String) -> LifecycleError {
        LifecycleError(.conflict, "\(app) is not running, so it cannot \(doing).")
    }

    /// The refusal of `end-task NAME` naming no open task of the app.
    public static func noOpenTask(named name: String, of app: String) -> LifecycleError {
        LifecycleError(.notFound, "\(app) has no open task named \"\(name)\".")
    }
}
