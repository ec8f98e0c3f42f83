import ArgumentParser
import WardenAPI

/// The `appwarden` command: the daemon and its client in one binary.
@main
struct Appwarden: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appwarden",
        abstract:
            "Runs processes as mobile-style apps: foreground, background, suspension, and a memory-pressure killer.",
        version: WardenVersion.current,
        subcommands: [
            SimulateCommand.self, PolicyCommand.self, ServeCommand.self, OpenCommand.self, HomeCommand.self,
            OverlayCommand.self, OverlayEndCommand.self, LockCommand.self, UnlockCommand.self, ForceQuitCommand.self,
            ResetCommand.self, PushCommand.self, StatusCommand.self, WatchCommand.self, EventsCommand.self,
            ExplainCommand.self, LogsCommand.self, TopCommand.self, AppCommand.self, ExportCommand.self,
        ]
    )
}
