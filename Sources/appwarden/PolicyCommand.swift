import ArgumentParser
import WardenCore
import WardenPolicy

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
/// Prints `FILE: valid (N apps)` and exits 0 when the file is valid; otherwise prints every
/// problem, one per line, each naming the file, line and key, and exits 1.
struct PolicyCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a policy file.",
        discussion: """
            Prints "FILE: valid (N apps)" and exits 0 when the policy is valid. Otherwise prints \
            every error, one per line, each with the file, line and key and a sentence saying \
            what is expected, and exits 1.
            """
    )

    @Argument(help: "The policy file (TOML).")
    var file: String

    func run() async throws {
        do {
            let policy = try PolicyLoader.load(path: file)
            let count = policy.apps.count
            print("\(file): valid (\(count) \(count == 1 ? "app" : "apps"))")
        } catch {
            for diagnostic in error.diagnostics {
                print(diagnostic)
            }
            throw ExitCode(1)
        }
    }
}
