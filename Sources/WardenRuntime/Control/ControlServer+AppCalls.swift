import Hummingbird
import WardenAPI
import WardenCore

extension ControlServer {
    /// The app calls of DESIGN §1.2 under `/v1/apps/{app}/…` (`ControlAPI`): the app's own
    /// processes or an operator.
    func addAppCalls(to router: Router<ControlServerContext>) {
        appCall(router, ControlAPI.ready) { app, _ in .ready(app: app) }
        appCall(router, ControlAPI.beginTask) { app, body in .beginTask(app: app, name: body.name) }
        appCall(router, ControlAPI.endTask) { app, body in .endTask(app: app, taskID: body.id) }
        appCall(router, ControlAPI.beginActivity) { app, body in .beginActivity(app: app, mode: body.mode) }
        appCall(router, ControlAPI.endActivity) { app, body in .endActivity(app: app, activityID: body.id) }
        appCall(router, ControlAPI.timeRemaining) { app, _ in .timeRemaining(app: app) }
        appCall(router, ControlAPI.completeFetch) { app, body in
            .completeFetch(app: app, result: try Self.completion(body))
        }
        appCall(router, ControlAPI.completePush) { app, body in
            .completePush(app: app, result: try Self.completion(body))
        }
        appCall(router, ControlAPI.completeAccessory) { app, _ in .completeAccessory(app: app) }
        appCall(router, ControlAPI.fetchInterval) { app, body in
            guard let interval = FetchInterval(parsing: body.interval) else {
                throw ControlServerFailure.invalid(APIMessages.invalidFetchInterval(body.interval))
            }
            return .setFetchInterval(app: app, interval: interval)
        }
        appCall(router, ControlAPI.registerPush) { app, _ in .registerPush(app: app) }
        appCall(router, ControlAPI.acquire) { app, body in .acquire(app: app, resource: body.resource) }
        appCall(router, ControlAPI.release) { app, body in .release(app: app, resource: body.resource) }
        appCall(router, ControlAPI.reportStatus) { app, body in
            guard let status = AppStatus(name: body.status), status == .foreground || status == .background else {
                throw ControlServerFailure.invalid(APIMessages.invalidStatus(body.status))
            }
            return .reportStatus(app: app, status: status)
        }
    }

    /// Registers one app call: checks that the caller may act for the app, decodes the body
    /// the table gives the call, builds the event and performs it.
    private func appCall<Body: ControlRequestBody, Reply>(
        _ router: Router<ControlServerContext>, _ endpoint: APIEndpoint<Body, Reply>,
        _ event: @escaping @Sendable (String, Body) throws -> LifecycleEvent
    ) {
        route(router, endpoint) { request, context, caller in
            let app = try context.parameters.require("app")
            try caller.requireApp(app, toDo: "make the call \(endpoint.name)")
            let body = try await Body.read(from: request)
            return try await self.perform(try event(app, body))
        }
    }

    /// The result of `complete-fetch` and `complete-push`.
    static func completion(_ body: ControlRequests.Completion) throws -> CompletionResult {
        guard let result = CompletionResult(rawValue: body.result) else {
            throw ControlServerFailure.invalid(APIMessages.invalidResult(body.result))
        }
        return result
    }
}

/// A request body as the server reads it: none, or a JSON object refused with a sentence
/// naming the field and an example when it does not decode.
protocol ControlRequestBody: Sendable {
    static func read(from request: Request) async throws -> Self
}

extension NoBody: ControlRequestBody {
    static func read(from request: Request) async throws -> NoBody { NoBody() }
}

/// A JSON request body, with an example of a good one for refusals.
protocol ExampleRequestBody: ControlRequestBody, Decodable {
    static var example: String { get }
}

extension ExampleRequestBody {
    static func read(from request: Request) async throws -> Self {
        try await ControlServer.decode(Self.self, from: request, example: example)
    }
}

extension ControlRequests.BeginTask: ExampleRequestBody {
    static var example: String { #"{"name":"upload"}"# }
}

extension ControlRequests.EndTask: ExampleRequestBody {
    static var example: String { #"{"id":1}"# }
}

extension ControlRequests.BeginActivity: ExampleRequestBody {
    static var example: String { #"{"mode":"audio"}"# }
}

extension ControlRequests.EndActivity: ExampleRequestBody {
    static var example: String { #"{"id":1}"# }
}

extension ControlRequests.Completion: ExampleRequestBody {
    static var example: String { #"{"result":"newData"}"# }
}

extension ControlRequests.FetchInterval: ExampleRequestBody {
    static var example: String { #"{"interval":"15m"}"# }
}

extension ControlRequests.Resource: ExampleRequestBody {
    static var example: String { #"{"resource":"camera"}"# }
}

extension ControlRequests.StatusReport: ExampleRequestBody {
    static var example: String { #"{"status":"foreground"}"# }
}
