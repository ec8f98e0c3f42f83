public import WardenCore

extension LifecycleEvent {
    /// How a scenario step writes the event, without its time, with `size` writing its sizes (a
    /// journal keeps them to the byte, the simulator's trace rounds them); nil for an event no
    /// step writes (timers, runtime facts). A memory sample is written without its swap figures,
    /// which each writer adds in its own detail.
    public func stepText(size: (Int64) -> String) -> String? {
        switch self {
        case .open(let app): "open \(app)"
        case .home: "home"
        case .overlay: "overlay"
        case .overlayEnd: "overlay-end"
        case .lock: "lock"
        case .unlock: "unlock"
        case .forceQuit(let app): "force-quit \(app)"
        case .reset(let app): "reset \(app)"
        case .push(.app(let app), let payload, _): "push \(app) \(payload)"
        case .push(.token(let token), let payload, _): "push \(token) \(payload)"
        case .accessory(let action, let properties): "accessory \(action) \(AccessoryMatch.propertiesText(properties))"
        case .ready(let app): "\(app) ready"
        case .beginTask(let app, let name): "\(app) begin-task \(name)"
        case .endTask(let app, let id): "\(app) end-task \(id)"
        case .beginActivity(let app, let mode): "\(app) begin-activity \(mode)"
        case .endActivity(let app, let id): "\(app) end-activity \(id)"
        case .timeRemaining(let app): "\(app) time-remaining"
        case .completeFetch(let app, let result): "\(app) complete-fetch \(result.rawValue)"
        case .completePush(let app, let result): "\(app) complete-push \(result.rawValue)"
        case .completeAccessory(let app): "\(app) complete-accessory"
        case .setFetchInterval(let app, let interval): "\(app) set-fetch-interval \(interval)"
        case .registerPush(let app): "\(app) register-push"
        case .acquire(let app, let resource): "\(app) acquire \(resource)"
        case .release(let app, let resource): "\(app) release \(resource)"
        case .reportStatus(let app, let status): "\(app) report-status \(status)"
        case .footprint(let app, let bytes, let swapped, let inRAM):
            "footprint \(app) \(size(bytes))" + (swapped.map { " swapped \(size($0))" } ?? "")
                + (inRAM.map { " in-ram \(size($0))" } ?? "")
        case .pressure(let level): "pressure \(level.rawValue)"
        case .memorySample(let available, let total, _): "memory \(size(available)) of \(size(total))"
        default: nil
        }
    }
}
