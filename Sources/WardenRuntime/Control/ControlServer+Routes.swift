import Hummingbird
import Logging
import NIOCore
import WardenAPI
import WardenCore

extension ControlServer {
    /// Builds the router of every route of `docs/openapi.yaml`.
    func makeRouter() -> Router<ControlServerContext> {
        let router = Router(context: ControlServerContext.self)
        router.add(middleware: ControlServerErrorMiddleware(routes: routes, metrics: control.metricsSource))
        addRoutes(to: router)
        return router
    }

    private func addRoutes(to router: Router<ControlServerContext>) {
        addOperatorVerbs(to: router)
        addAppCalls(to: router)
        addReads(to: router)
        addMetrics(to: router)
    }

    /// Registers `handler` for the table's `endpoint`; the handler receives the identified
    /// caller and every error it throws becomes a JSON error answer.
    func route(
        _ router: Router<ControlServerContext>, _ endpoint: some APIRoute,
        _ handler: @escaping @Sendable (Request, ControlServerContext, ControlServerCaller) async throws -> Response
    ) {
        let method: HTTPRequest.Method =
            switch endpoint.method {
            case .get: .get
            case .post: .post
            }
        let name = endpoint.route
        let metrics = control.metricsSource
        router.on(RouterPath(endpoint.template), method: method) { request, context in
            let response = await self.respond(to: request, context: context, handler)
            metrics?.countRequest(route: name, status: Int(response.status.code))
            return response
        }
    }

    func respond(
        to request: Request, context: ControlServerContext,
        _ handler: @Sendable (Request, ControlServerContext, ControlServerCaller) async throws -> Response
    ) async -> Response {
        do {
            let caller = await identifyCaller(of: context)
            return try await handler(request, context, caller)
        } catch let failure as ControlServerFailure {
            return failure.response()
        } catch let error as LifecycleError {
            return ControlServerFailure(error).response()
        } catch let error as NIOTooManyBytesError {
            return ControlServerFailure(
                .contentTooLarge, "payloadTooLarge",
                "The request body is larger than \(error.maxBytes ?? ControlServer.maximumBodyBytes) bytes."
            ).response()
        } catch {
            logger.error("\(request.method) \(request.uri.path) failed: \(error)")
            return ControlServerFailure(
                .internalServerError, "internal", "The request \(request.method) \(request.uri.path) failed: \(error)."
            ).response()
        }
    }

    /// Applies an event through the daemon and turns its reply into the answer's body.
    func perform(_ event: LifecycleEvent) async throws(ControlServerFailure) -> Response {
        let reply: Reply?
        do {
            reply = try await control.perform(event)
        } catch {
            throw ControlServerFailure(error)
        }
        switch reply {
        case nil:
            return Self.json(ControlReplies.Done())
        case .taskBegun(let id, let remaining):
            return Self.json(
                ControlReplies.TaskBegun(id: id, remainingMillis: remaining.map(\.milliseconds)))
        case .activityBegun(let id):
            return Self.json(ControlReplies.ActivityBegun(id: id))
        case .timeRemaining(let remaining):
            return Self.json(
                ControlReplies.TimeRemaining(remainingMillis: remaining.map(\.milliseconds)))
        case .deviceToken(let token):
            return Self.json(ControlReplies.DeviceToken(token: token))
        case .push(let disposition):
            return Self.json(ControlReplies.PushAccepted(disposition: disposition.rawValue))
        case .policyChanged(let diff):
            return Self.json(ControlReplies.PolicyReloaded(message: "The policy was reloaded.", diff: diff))
        }
    }

}

extension ControlServer {
    /// Every route the server answers, as `METHOD /path/{parameter}` — the form of
    /// `docs/openapi.yaml`'s paths.
    public var routes: [String] {
        let router = Router(context: ControlServerContext.self)
        addRoutes(to: router)
        return router.routes.map { Self.routeName($0.method, $0.path) }.sorted()
    }

    /// A route as `METHOD /path/{parameter}`, the form of `docs/openapi.yaml`'s paths.
    static func routeName(_ method: HTTPRequest.Method, _ path: RouterPath) -> String {
        let segments = path.description.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0)
        }
        return "\(method) \(segments.joined(separator: "/"))"
    }
}
