/// Why the core refused an event. A refused event changes nothing.
public struct LifecycleError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    /// A full sentence naming what was wrong.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// No such app, task or resource (HTTP 404).
        case notFound
        /// The app's state does not allow this call (HTTP 409).
        case conflict
        /// The device token is stale (HTTP 410).
        case unregistered
        /// The push payload is larger than allowed (HTTP 413).
        case payloadTooLarge
        /// The input is malformed (HTTP 400).
        case invalid
        /// The daemon is stopping and took no part of the call; asking again later, of the
        /// daemon that starts next, may succeed (HTTP 503 with Retry-After).
        case unavailable
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The refusal of anything naming an app the policy does not declare: one sentence for
    /// every verb, call and read.
    public static func unknownApp(_ app: String) -> LifecycleError {
        LifecycleError(.notFound, "No app named \"\(app)\" is declared in the policy.")
    }
}
