import HTTPTypes
import Hummingbird
import WardenAPI
import WardenCore

extension ControlServer {
    /// The operator verbs of DESIGN §1.1, `push`, and `policy reload`: root or the socket's group only.
    func addOperatorVerbs(to router: Router<ControlServerContext>) {
        let verbs: [(APIEndpoint<NoBody, ControlReplies.Done>, LifecycleEvent)] = [
            (ControlAPI.home, .home), (ControlAPI.overlay, .overlay), (ControlAPI.overlayEnd, .overlayEnd),
            (ControlAPI.lock, .lock), (ControlAPI.unlock, .unlock),
        ]
        for (endpoint, event) in verbs {
            route(router, endpoint) { _, _, caller in
                try caller.requireOperator(toDo: endpoint.name)
                return try await self.perform(event)
            }
        }
        let appVerbs: [(APIEndpoint<NoBody, ControlReplies.Done>, @Sendable (String) -> LifecycleEvent)] = [
            (ControlAPI.open, { .open(app: $0) }), (ControlAPI.forceQuit, { .forceQuit(app: $0) }),
            (ControlAPI.reset, { .reset(app: $0) }),
        ]
        for (endpoint, event) in appVerbs {
            route(router, endpoint) { _, context, caller in
                let app = try context.parameters.require("app")
                try caller.requireOperator(toDo: "\(endpoint.name) app \"\(app)\"")
                return try await self.perform(event(app))
            }
        }
        route(router, ControlAPI.push) { request, context, caller in
            let app = try context.parameters.require("app")
            try caller.requireOperator(toDo: "push to app \"\(app)\"")
            return try await self.push(to: .app(app), request)
        }
        route(router, ControlAPI.pushToken) { request, context, caller in
            let token = try context.parameters.require("token")
            try caller.requireOperator(toDo: "push to a device token")
            return try await self.push(to: .token(token), request)
        }
        route(router, ControlAPI.reloadPolicy) { request, _, caller in
            try caller.requireOperator(toDo: "reload the policy")
            let restart = request.uri.queryParameters["restartChanged"].map(String.init)
            guard restart == nil || restart == "true" || restart == "false" else {
                throw ControlServerFailure.invalid(
                    "The query parameter \"restartChanged\" must be true or false, not \"\(restart ?? "")\".")
            }
            do {
                return Self.json(try await self.control.reloadPolicy(restartChanged: restart == "true"))
            } catch let error as LifecycleError {
                throw ControlServerFailure(error)
            } catch let error as WardenDaemonError {
                // The daemon's sentence already says that the running policy stays in force.
                throw ControlServerFailure.invalid(error.message)
            } catch {
                throw ControlServerFailure.invalid("The policy was not reloaded and stays in force: \(error)")
            }
        }
    }

    /// A push: the body is the JSON payload exactly as sent; the notification id comes from the
    /// `id` query parameter or the `Appwarden-Push-Id` header, else from the payload's `"id"`.
    /// A body that is not a JSON object is refused (400) before the app or device token is
    /// looked up, so malformed input gets the same answer whatever it is addressed to.
    func push(to target: PushTarget, _ request: Request) async throws -> Response {
        let bytes = try await Self.bodyBytes(of: request)
        guard let payload = String(validating: bytes, as: UTF8.self) else {
            throw ControlServerFailure.invalid("The push payload is not UTF-8 text; send a JSON object.")
        }
        guard !payload.isEmpty else {
            throw ControlServerFailure.invalid(
                #"The push payload is empty; send a JSON object such as {"aps":{"content-available":1}}."#)
        }
        do {
            _ = try PushPayload(parsing: payload)
        } catch {
            throw ControlServerFailure(error)
        }
        let id =
            request.uri.queryParameters["id"].map(String.init)
            ?? Self.pushIDHeader.flatMap { request.headers[$0] }
        return try await perform(.push(target: target, payload: payload, id: id))
    }

    /// `Appwarden-Push-Id`: the notification id of a push, when not given as the `id` query parameter.
    static let pushIDHeader = HTTPField.Name("Appwarden-Push-Id")
}
