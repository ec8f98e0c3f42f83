import ArgumentParser
import FoundationEssentials
import Glibc
import WardenAPI
import WardenPlatform

extension Appwarden {
    /// Runs the command with exit codes that scripts can rely on: 0 success, 1 refused by the
    /// daemon (its sentence printed), 2 a usage error, 3 the daemon cannot be reached or is stopping. Commands
    /// that choose their own code (`ExitCode(n)`) keep it. With `--json`, a failure is printed
    /// on standard output as `{"error": CODE, "message": SENTENCE}`. `status`, the command an
    /// operator or a script runs most often, an app's calls from a shell script (`app
    /// begin-task` and the others) and the operator verbs that are one call (`home`, `lock`,
    /// `force-quit APP`, …) are read without the argument parser where they can be.
    static func main() async {
        do {
            if let status = StatusCommand.quickArguments(CommandLine.arguments.dropFirst()) {
                try StatusCommand.show(status.app, through: status.session)
                return
            }
            if let app = AppCall.quickArguments(CommandLine.arguments.dropFirst()) {
                try app.call.perform(app: app.app, through: app.session)
                return
            }
            if let verb = VerbCall.quickArguments(CommandLine.arguments.dropFirst()) {
                try VerbCall.perform(verb.name, app: verb.app, through: verb.session)
                return
            }
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as ClientExit {
            if JSONOutput.requested {
                print(JSONOutput.text(failure.body))
            } else {
                StandardStream.error.write("appwarden: \(failure)\n")
            }
            Glibc.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                if JSONOutput.requested {
                    print(JSONOutput.text(APIErrorBody(error: "usage", message: fullMessage(for: error))))
                } else {
                    StandardStream.error.write(fullMessage(for: error) + "\n")
                }
                Glibc.exit(2)
            }
            if JSONOutput.requested, code != .success, !(error is ExitCode) {
                print(JSONOutput.text(APIErrorBody(error: "failed", message: fullMessage(for: error))))
                Glibc.exit(code.rawValue)
            }
            exit(withError: error)
        }
    }
}
