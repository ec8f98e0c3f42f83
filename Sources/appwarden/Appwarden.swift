import ArgumentParser

/// The `appwarden` command: the daemon and its client in one binary.
@main
struct Appwarden: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appwarden",
        abstract: "Runs processes as mobile-style apps: foreground, background, suspension, and a memory-pressure killer.",
        subcommands: [SimulateCommand.self, PolicyCommand.self, ServeCommand.self]
    )
}
