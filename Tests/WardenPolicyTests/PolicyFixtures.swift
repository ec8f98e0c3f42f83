import Foundation
import Testing
import WardenPolicy

/// Paths of the files the tests read: broken policies under `Tests/Policies`, shipped ones under `policies`.
enum PolicyFixtures {
    /// The package's root directory.
    static let packageRoot: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)
        return components.joined(separator: "/")
    }()

    /// The path of a broken policy under `Tests/Policies`.
    static func brokenPolicy(_ name: String) -> String {
        "\(packageRoot)/Tests/Policies/\(name)"
    }

    /// The path of a shipped policy under `policies`.
    static func shippedPolicy(_ name: String) -> String {
        "\(packageRoot)/policies/\(name)"
    }

    /// The text of a broken policy.
    static func text(ofBrokenPolicy name: String) throws -> String {
        try String(contentsOfFile: brokenPolicy(name), encoding: .utf8)
    }

    /// The diagnostics that parsing `text` (named `file`) throws; records an issue when it does not throw.
    static func diagnostics(
        parsing text: String, file: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [PolicyDiagnostic] {
        do {
            _ = try PolicyLoader.parse(text, file: file)
            Issue.record("The policy was accepted.", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.diagnostics
        }
    }

    /// The descriptions of the diagnostics that the broken policy `name` throws, named by its file name.
    static func descriptions(ofBrokenPolicy name: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [String]
    {
        diagnostics(parsing: try text(ofBrokenPolicy: name), file: name, sourceLocation: sourceLocation)
            .map(\.description)
    }
}
