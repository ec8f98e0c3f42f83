import Hummingbird
import WardenAPI

/// Turns Hummingbird's own refusals (no such route, wrong method) into JSON `APIErrorBody`
/// answers like every other refusal of the control server.
struct ControlServerErrorMiddleware: RouterMiddleware {
    typealias Context = ControlServerContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let failure: ControlServerFailure =
                if error.status == .notFound {
                    ControlServerFailure(
                        .notFound, "notFound",
                        "The control API has no route \(request.method) \(request.uri.path); see docs/openapi.yaml.")
                } else {
                    ControlServerFailure(
                        error.status, error.status == .contentTooLarge ? "payloadTooLarge" : "invalid",
                        error.body
                            ?? "The request \(request.method) \(request.uri.path) was refused (\(error.status.code)).")
                }
            return failure.response()
        }
    }
}
