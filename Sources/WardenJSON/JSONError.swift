/// Why a text is not the JSON it should be: one sentence that names what was read (the reader's
/// subject) and, for a syntax error, the byte offset where it was found. Callers turn it into
/// their own errors (the core's `LifecycleError(.invalid, …)`, a scenario's diagnostic).
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
