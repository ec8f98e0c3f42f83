import ArgumentParser
import Foundation

extension Appwarden {
    /// Runs the command with exit codes that scripts can rely on: 0 success, 1 refused by the
    /// daemon (its sentence printed), 2 a usage error, 3 the daemon cannot be reached. Commands
    /// that choose their own code (`ExitCode(n)`) keep it.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as ClientExit {
            FileHandle.standardError.write(Data("appwarden: \(failure)\n".utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
