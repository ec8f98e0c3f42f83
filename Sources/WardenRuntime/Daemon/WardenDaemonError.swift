/// Why the daemon could not start or carry out a request, in a full sentence.
public struct WardenDaemonError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
