/// A scenario that cannot be run: every problem found, each naming its file, line and step or key.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var diagnostics: [ScenarioDiagnostic]

    public init(_ diagnostics: [ScenarioDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public init(file: String, line: Int? = nil, key: String? = nil, message: String) {
        self.diagnostics = [ScenarioDiagnostic(file: file, line: line, key: key, message: message)]
    }

    /// Every problem, one per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
