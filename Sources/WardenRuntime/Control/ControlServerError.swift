/// Why the control server could not start or keep its socket.
public struct ControlServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A full sentence naming the path and what was wrong.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
