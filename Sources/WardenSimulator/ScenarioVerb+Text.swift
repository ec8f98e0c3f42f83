import WardenCore

extension ScenarioVerb: CustomStringConvertible {
    /// The verb as a step writes it: `open mail`, `mail begin-task sync`, `pressure critical`.
    public var description: String {
        switch self {
        case .event(let event): Self.stepText(of: event)
        case .endTask(let app, let task): "\(app) end-task \(task)"
        case .crash(let app): "\(app) crash"
        case .exit(let app): "\(app) exit"
        case .scan(let app, let outcome): "scan \(app) \(outcome.rawValue)"
        case .stall(let percent): "stall \(percent)%"
        }
    }

    /// How a step writes `event`; events no step writes (timers, runtime facts) as the trace
    /// prints them.
    static func stepText(of event: LifecycleEvent) -> String {
        switch event {
        case .open(let app): "open \(app)"
        case .home: "home"
        case .overlay: "overlay"
        case .overlayEnd: "overlay-end"
        case .lock: "lock"
        case .unlock: "unlock"
        case .forceQuit(let app): "force-quit \(app)"
        case .reset(let app): "reset \(app)"
        case .push(let target, let payload, _):
            switch target {
            case .app(let app): "push \(app) \(payload)"
            case .token(let token): "push \(token) \(payload)"
            }
        case .ready(let app): "\(app) ready"
        case .beginTask(let app, let name): "\(app) begin-task \(name)"
        case .endTask(let app, let id): "\(app) end-task \(id)"
        case .timeRemaining(let app): "\(app) time-remaining"
        case .completeFetch(let app, let result): "\(app) complete-fetch \(result.rawValue)"
        case .completePush(let app, let result): "\(app) complete-push \(result.rawValue)"
        case .setFetchInterval(let app, let interval): "\(app) set-fetch-interval \(interval)"
        case .registerPush(let app): "\(app) register-push"
        case .acquire(let app, let resource): "\(app) acquire \(resource)"
        case .release(let app, let resource): "\(app) release \(resource)"
        case .reportStatus(let app, let status): "\(app) report-status \(status)"
        case .footprint(let app, let bytes): "footprint \(app) \(DurationFormat.sizeString(bytes))"
        case .pressure(let level): "pressure \(level.rawValue)"
        case .memorySample(let available, let total, let swap):
            "memory \(DurationFormat.sizeString(available)) of \(DurationFormat.sizeString(total))"
                + (swap.map { " swap \(DurationFormat.sizeString($0.free)) of \(DurationFormat.sizeString($0.total))" }
                    ?? "")
        default: TraceText.event(event)
        }
    }
}
