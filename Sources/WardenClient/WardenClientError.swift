/// A failure of a call to the appwarden daemon: what went wrong, in a sentence, with the HTTP
/// status and the daemon's error body when the daemon answered.
public struct WardenClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    /// A full sentence naming what was wrong.
    public var message: String
    /// The HTTP status, when the daemon answered with an error.
    public var status: Int?
    /// The daemon's error code (`APIErrorBody.error`: `notFound`, `conflict`, …), when it sent one.
    public var reason: String?

    public init(_ code: Code, _ message: String, status: Int? = nil, reason: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason
    }

    public enum Code: String, Sendable, Equatable {
        /// `APPWARDEN_SOCKET` or `APPWARDEN_APP` is not set.
        case notConfigured
        /// The socket could not be reached, the connection broke, or the daemon did not answer
        /// within the connection's `answerTimeout`.
        case connection
        /// The daemon's answer is not valid HTTP or not the expected JSON.
        case protocolViolation
        /// The daemon refused the call (4xx/5xx); `status` and `message` say why.
        case refused
    }

    public var description: String {
        if let status { return "\(code.rawValue) (HTTP \(status)): \(message)" }
        return "\(code.rawValue): \(message)"
    }
}
