public import WardenCore

/// What one scenario step does: an operator verb, an app call or a simulation fact.
public enum ScenarioVerb: Sendable, Equatable {
    // MARK: Operator verbs (DESIGN §1.1)
    case open(app: String)
    case home
    case overlay
    case overlayEnd
    case lock
    case unlock
    case forceQuit(app: String)
    case reset(app: String)
    /// A push to an app or a device token; `payload` is the JSON text as written.
    case push(target: PushTarget, payload: String)

    // MARK: App calls (DESIGN §1.2)
    case ready(app: String)
    case beginTask(app: String, name: String)
    case endTask(app: String, task: TaskReference)
    case timeRemaining(app: String)
    case completeFetch(app: String, result: CompletionResult)
    case completePush(app: String, result: CompletionResult)
    case setFetchInterval(app: String, interval: FetchInterval)
    case registerPush(app: String)
    case acquire(app: String, resource: String)
    case release(app: String, resource: String)
    case reportStatus(app: String, status: AppStatus)
    /// The app's process dies on its own with a failure.
    case crash(app: String)
    /// The app's process exits on its own with status 0.
    case exit(app: String)

    // MARK: Simulation facts
    /// What killing the app would now give back, in bytes.
    case footprint(app: String, bytes: Int64)
    /// A pressure level reported directly.
    case pressure(PressureLevel)
    /// What the watchdog's next scans of the app find.
    case scan(app: String, outcome: ScanOutcome)

    /// The app the step is about, if it names one.
    public var app: String? {
        switch self {
        case .open(let app), .forceQuit(let app), .reset(let app), .ready(let app), .timeRemaining(let app),
            .registerPush(let app), .crash(let app), .exit(let app):
            app
        case .beginTask(let app, _), .endTask(let app, _), .completeFetch(let app, _), .completePush(let app, _),
            .setFetchInterval(let app, _), .acquire(let app, _), .release(let app, _), .reportStatus(let app, _),
            .footprint(let app, _), .scan(let app, _):
            app
        case .push(let target, _):
            if case .app(let app) = target { app } else { nil }
        case .home, .overlay, .overlayEnd, .lock, .unlock, .pressure:
            nil
        }
    }
}

/// How `end-task` names the task: by the id `begin-task` returned, or by the name it was begun with.
public enum TaskReference: Sendable, Hashable, CustomStringConvertible {
    case id(Int)
    case name(String)

    public var description: String {
        switch self {
        case .id(let id): "\(id)"
        case .name(let name): name
        }
    }
}
