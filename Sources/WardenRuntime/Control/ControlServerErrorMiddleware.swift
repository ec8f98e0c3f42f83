import Hummingbird
import WardenAPI

/// Turns Hummingbird's own refusals (no such route, body too large) into JSON `APIErrorBody`
/// answers like every other refusal of the control server, and a known path called with the
/// wrong method into 405 with the methods it answers.
struct ControlServerErrorMiddleware: RouterMiddleware {
    typealias Context = ControlServerContext

    /// Every route as method and path segments (`{app}` matches any segment).
    let routes: [(method: String, segments: [Substring])]
    /// Where refused requests are counted, as route `unmatched`.
    let metrics: WardenMetrics?

    init(routes: [String], metrics: WardenMetrics? = nil) {
        self.metrics = metrics
        self.routes = routes.compactMap { route in
            let parts = route.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), parts[1].split(separator: "/", omittingEmptySubsequences: false))
        }
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let response = answer(error, to: request)
            metrics?.countRequest(route: "unmatched", status: Int(response.status.code))
            return response
        }
    }

    /// The JSON answer to one of Hummingbird's refusals.
    private func answer(_ error: HTTPError, to request: Request) -> Response {
        let route = "\(request.method) \(request.uri.path)"
        let failure: ControlServerFailure
        if error.status == .notFound {
            let allowed = methods(answering: request.uri.path)
            if allowed.isEmpty {
                failure = ControlServerFailure(
                    .notFound, "notFound", "The control API has no route \(route); see docs/openapi.yaml.")
            } else {
                failure = ControlServerFailure(
                    .methodNotAllowed, "methodNotAllowed",
                    "\(request.uri.path) answers only \(allowed.joined(separator: " and ")), not \(request.method)"
                        + (allowed == ["POST"] ? " (with curl: -X POST)." : ".")
                )
            }
            var response = failure.response()
            if !allowed.isEmpty { response.headers[.allow] = allowed.joined(separator: ", ") }
            return response
        }
        failure = ControlServerFailure(
            error.status, error.status == .contentTooLarge ? "payloadTooLarge" : "invalid",
            error.body ?? "The request \(route) was refused (\(error.status.code)).")
        return failure.response()
    }

    /// The methods of the routes whose pattern matches `path`.
    private func methods(answering path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let matching = routes.filter { route in
            route.segments.count == segments.count
                && zip(route.segments, segments).allSatisfy { pattern, segment in
                    pattern == segment || pattern.hasPrefix("{") && !segment.isEmpty
                }
        }
        return Array(Set(matching.map(\.method))).sorted()
    }
}
