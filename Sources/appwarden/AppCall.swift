import FoundationEssentials
import Glibc
import WardenAPI
import WardenCore

/// One call an app makes from a shell script, as `appwarden app VERB [ARGUMENT]` names it (all
/// but `events`, which follows the journal): made on the thread the command runs on, whether the
/// argument parser read the command line or `quickArguments(_:)` did.
enum AppCall: Equatable {
    case ready
    case beginTask(name: String)
    case endTask(id: Int)
    case beginActivity(mode: String)
    case endActivity(id: Int)
    case timeRemaining
    case completeFetch(result: String)
    case completePush(result: String)
    case completeAccessory
    case setFetchInterval(String)
    case registerPush
    case acquire(resource: String)
    case release(resource: String)
    case reportStatus(String)

    /// The call that `verb` and its `arguments` name, or nil when they name none or an argument is
    /// not one the command accepts.
    init?(verb: String, arguments: [String]) {
        switch (verb, arguments.first, arguments.count) {
        case ("ready", _, 0): self = .ready
        case ("begin-task", let name?, 1): self = .beginTask(name: name)
        case ("end-task", let id?, 1):
            guard let id = Int(id) else { return nil }
            self = .endTask(id: id)
        case ("begin-activity", let mode?, 1): self = .beginActivity(mode: mode)
        case ("end-activity", let id?, 1):
            guard let id = Int(id) else { return nil }
            self = .endActivity(id: id)
        case ("time-remaining", _, 0): self = .timeRemaining
        case ("complete-fetch", let result?, 1) where Self.isCompletion(result): self = .completeFetch(result: result)
        case ("complete-push", let result?, 1) where Self.isCompletion(result): self = .completePush(result: result)
        case ("complete-accessory", _, 0): self = .completeAccessory
        case ("set-fetch-interval", let interval?, 1) where Self.isFetchInterval(interval):
            self = .setFetchInterval(interval)
        case ("register-push", _, 0): self = .registerPush
        case ("acquire", let resource?, 1): self = .acquire(resource: resource)
        case ("release", let resource?, 1): self = .release(resource: resource)
        case ("report-status", let status?, 1) where Self.isReportedStatus(status): self = .reportStatus(status)
        default: return nil
        }
    }

    /// `newData`, `noData` or `failed`.
    static func isCompletion(_ result: String) -> Bool { CompletionResult(rawValue: result) != nil }

    /// `minimum`, `never` or a duration.
    static func isFetchInterval(_ interval: String) -> Bool { FetchInterval(parsing: interval) != nil }

    /// `foreground` or `background`.
    static func isReportedStatus(_ status: String) -> Bool {
        status == AppStatus.foreground.description || status == AppStatus.background.description
    }

    /// Makes the call for `app` and prints what the daemon answered: a task's or activity's id, the time left,
    /// the device token, or nothing; the answer as JSON with `--json`.
    func perform(app: String, through client: some ClientContext) throws(ClientExit) {
        let arguments = [app]
        // A call whose answer is printed only as JSON.
        func call<Body: Encodable, Reply: Encodable>(_ endpoint: APIEndpoint<Body, Reply>, _ body: Body)
            throws(ClientExit)
        {
            client.output(try client.callNow(endpoint, arguments, body: body), text: "")
        }
        switch self {
        case .ready:
            client.output(try client.callNow(ControlAPI.ready, arguments), text: "")
        case .beginTask(let name):
            let begun = try client.callNow(ControlAPI.beginTask, arguments, body: ControlRequests.BeginTask(name: name))
            client.output(begun, text: "\(begun.id)")
        case .endTask(let id): try call(ControlAPI.endTask, ControlRequests.EndTask(id: id))
        case .beginActivity(let mode):
            let begun = try client.callNow(
                ControlAPI.beginActivity, arguments, body: ControlRequests.BeginActivity(mode: mode))
            client.output(begun, text: "\(begun.id)")
        case .endActivity(let id): try call(ControlAPI.endActivity, ControlRequests.EndActivity(id: id))
        case .timeRemaining:
            let answer = try client.callNow(ControlAPI.timeRemaining, arguments)
            client.output(
                answer, text: answer.remainingMillis.map { DurationFormat.secondsString(millis: $0) } ?? "unlimited")
        case .completeFetch(let result): try call(ControlAPI.completeFetch, ControlRequests.Completion(result: result))
        case .completePush(let result): try call(ControlAPI.completePush, ControlRequests.Completion(result: result))
        case .completeAccessory:
            client.output(try client.callNow(ControlAPI.completeAccessory, arguments), text: "")
        case .setFetchInterval(let interval):
            try call(ControlAPI.fetchInterval, ControlRequests.FetchInterval(interval: interval))
        case .registerPush:
            let answer = try client.callNow(ControlAPI.registerPush, arguments)
            client.output(answer, text: answer.token)
        case .acquire(let resource): try call(ControlAPI.acquire, ControlRequests.Resource(resource: resource))
        case .release(let resource): try call(ControlAPI.release, ControlRequests.Resource(resource: resource))
        case .reportStatus(let status): try call(ControlAPI.reportStatus, ControlRequests.StatusReport(status: status))
        }
    }

    /// `app VERB [ARGUMENT] [--app NAME] [--json] [--socket PATH]` read without the argument parser
    /// (`QuickCommandLine`): the call, the app (`--app`, else `$APPWARDEN_APP`) and the session.
    /// Nil for any other command line, and for one that names no app or an argument the command
    /// refuses, which the parser reads and explains.
    static func quickArguments(_ arguments: ArraySlice<String>) -> (call: AppCall, app: String, session: ClientSession)?
    {
        var rest = arguments
        guard rest.popFirst() == "app", let verb = rest.popFirst(), let line = QuickCommandLine(rest),
            let call = AppCall(verb: verb, arguments: line.words),
            let app = line.app ?? getenv("APPWARDEN_APP").map({ String(cString: $0) })
        else { return nil }
        return (call, app, line.session)
    }
}
