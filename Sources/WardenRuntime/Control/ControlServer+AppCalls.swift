import Hummingbird
import WardenAPI
import WardenCore

extension ControlServer {
    /// The app calls of DESIGN §1.2 under `/v1/apps/NAME/…`: the app's own processes or an operator.
    func addAppCalls(to router: Router<ControlServerContext>) {
        appCall(router, .post, "ready") { app, _ in .ready(app: app) }
        appCall(router, .post, "begin-task") { app, request in
            let body = try await Self.decode(
                ControlRequests.BeginTask.self, from: request, example: #"{"name":"upload"}"#)
            return .beginTask(app: app, name: body.name)
        }
        appCall(router, .post, "end-task") { app, request in
            let body = try await Self.decode(ControlRequests.EndTask.self, from: request, example: #"{"id":1}"#)
            return .endTask(app: app, taskID: body.id)
        }
        appCall(router, .get, "time-remaining") { app, _ in .timeRemaining(app: app) }
        appCall(router, .post, "complete-fetch") { app, request in
            .completeFetch(app: app, result: try await Self.completion(request))
        }
        appCall(router, .post, "complete-push") { app, request in
            .completePush(app: app, result: try await Self.completion(request))
        }
        appCall(router, .post, "fetch-interval") { app, request in
            let body = try await Self.decode(
                ControlRequests.FetchInterval.self, from: request, example: #"{"interval":"15m"}"#)
            guard let interval = FetchInterval(parsing: body.interval) else {
                throw ControlServerFailure.invalid(
                    "The fetch interval must be \"minimum\", \"never\" or a duration such as \"15m\", not \"\(body.interval)\"."
                )
            }
            return .setFetchInterval(app: app, interval: interval)
        }
        appCall(router, .post, "register-push") { app, _ in .registerPush(app: app) }
        appCall(router, .post, "acquire") { app, request in
            let body = try await Self.decode(
                ControlRequests.Resource.self, from: request, example: #"{"resource":"camera"}"#)
            return .acquire(app: app, resource: body.resource)
        }
        appCall(router, .post, "release") { app, request in
            let body = try await Self.decode(
                ControlRequests.Resource.self, from: request, example: #"{"resource":"camera"}"#)
            return .release(app: app, resource: body.resource)
        }
        appCall(router, .post, "report-status") { app, request in
            let body = try await Self.decode(
                ControlRequests.StatusReport.self, from: request, example: #"{"status":"foreground"}"#)
            guard let status = AppStatus.allCases.first(where: { $0.description == body.status }) else {
                throw ControlServerFailure.invalid(
                    "An app reports its status as \"foreground\" or \"background\", not \"\(body.status)\".")
            }
            return .reportStatus(app: app, status: status)
        }
    }

    /// Registers one app call: checks that the caller may act for the app, builds the event
    /// from the request and performs it.
    private func appCall(
        _ router: Router<ControlServerContext>, _ method: HTTPRequest.Method, _ call: String,
        _ event: @escaping @Sendable (String, Request) async throws -> LifecycleEvent
    ) {
        route(router, method, "/v1/apps/:app/\(call)") { request, context, caller in
            let app = try context.parameters.require("app")
            try caller.requireApp(app, toDo: "make the call \(call)")
            return try await self.perform(try await event(app, request))
        }
    }

    /// The body of `complete-fetch` and `complete-push`.
    static func completion(_ request: Request) async throws -> CompletionResult {
        let body = try await decode(ControlRequests.Completion.self, from: request, example: #"{"result":"newData"}"#)
        guard let result = CompletionResult(rawValue: body.result) else {
            throw ControlServerFailure.invalid(
                "The result must be \"newData\", \"noData\" or \"failed\", not \"\(body.result)\".")
        }
        return result
    }
}
