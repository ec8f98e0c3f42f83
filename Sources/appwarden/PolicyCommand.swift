import ArgumentParser
import WardenCore
import WardenPolicy
import WardenRuntime

/// `appwarden policy …`: policy file tools.
struct PolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Check policy files, and make the running daemon reload its policy.",
        subcommands: [PolicyCheckCommand.self, PolicyReloadCommand.self]
    )
}

/// `appwarden policy check FILE`: validates a policy file and lists every error.
///
/// Prints `FILE: valid (N apps)` and exits 0 when the file is valid, with a warning for each
/// app whose program cannot be found on this machine; otherwise prints every problem, one per
/// line, each naming the file, line and key, and exits 1.
struct PolicyCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a policy file.",
        discussion: """
            Prints "FILE: valid (N apps)" and exits 0 when the policy is valid, followed by a warning \
            for each app whose command cannot be found here (a launch of it would fail). Otherwise \
            prints every error, one per line, each with the file, line and key and a sentence saying \
            what is expected, and exits 1. With --json it prints {"file", "valid", "apps", "errors", \
            "warnings"}.
            """
    )

    @Argument(help: "The policy file (TOML).")
    var file: String

    @Flag(help: "Print the result as JSON, for scripts.")
    var json = false

    /// What `--json` prints.
    struct Result: Encodable {
        var file: String
        var valid: Bool
        var apps: [String]
        var errors: [String]
        var warnings: [String]
    }

    func run() async throws {
        var result = Result(file: file, valid: true, apps: [], errors: [], warnings: [])
        do {
            let policy = try PolicyLoader.load(path: file)
            result.apps = policy.apps.map(\.name)
            result.warnings = PolicyWarnings.warnings(for: policy)
        } catch {
            result.valid = false
            result.errors = error.diagnostics.map(\.description)
        }
        if json {
            print(JSONOutput.text(result))
        } else if result.valid {
            let count = result.apps.count
            print("\(file): valid (\(count) \(count == 1 ? "app" : "apps"))")
            for warning in result.warnings { print("\(file): warning: \(warning)") }
        } else {
            for error in result.errors { print(error) }
        }
        if !result.valid { throw ExitCode(1) }
    }
}
