import ArgumentParser

/// `appwarden policy …`: policy file tools.
struct PolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Check policy files.",
        subcommands: [PolicyCheckCommand.self]
    )
}

/// `appwarden policy check FILE`: validates a policy file and lists every error.
struct PolicyCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Validate a policy file.")

    @Argument(help: "The policy file (TOML).")
    var file: String

    func run() async throws {}
}
