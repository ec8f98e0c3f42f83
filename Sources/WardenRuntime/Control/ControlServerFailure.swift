import Hummingbird
import WardenAPI
import WardenCore

/// A refusal of the control server: an HTTP status and the `APIErrorBody` that explains it.
struct ControlServerFailure: Error, Sendable {
    var status: HTTPResponse.Status
    var body: APIErrorBody

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.body = APIErrorBody(error: code, message: message)
    }

    /// The core's refusal, with the status its code stands for.
    init(_ error: LifecycleError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .notFound: .notFound
            case .conflict: .conflict
            case .unregistered: .gone
            case .payloadTooLarge: .contentTooLarge
            case .invalid: .badRequest
            case .unavailable: .serviceUnavailable
            }
        self.init(status, error.code.rawValue, error.message)
    }

    static func forbidden(_ message: String) -> Self {
        Self(.forbidden, "forbidden", message)
    }

    static func invalid(_ message: String) -> Self {
        Self(.badRequest, "invalid", message)
    }
}
