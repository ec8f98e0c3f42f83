/// A policy or scenario file that was refused, with every problem found in it.
public struct PolicyError: Error, Sendable, CustomStringConvertible {
    /// Every problem, in the order of the file.
    public var diagnostics: [PolicyDiagnostic]

    public init(diagnostics: [PolicyDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// One problem per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
