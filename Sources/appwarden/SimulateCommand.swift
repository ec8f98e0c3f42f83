import ArgumentParser

/// `appwarden simulate FILE`: replays a scenario in virtual time and checks its expectations.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", abstract: "Replay a scenario in virtual time.")

    @Argument(help: "The scenario file (TOML).")
    var file: String

    func run() async throws {}
}
