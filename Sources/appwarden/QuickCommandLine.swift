import FoundationEssentials

/// A client command line read without the argument parser, whose look through every command's
/// declarations is most of the start-up of a command that runs for a few milliseconds: its words
/// and the options client commands share (`--json`, `--socket PATH`, and `--app NAME` for an
/// app's calls). Nil for anything it is not sure of (help, another option, a missing value, an
/// option given twice, `--`), which the parser reads and, where it is wrong, explains.
struct QuickCommandLine {
    /// The words that are not options, in order: the command's names and its arguments.
    var words: [String]
    /// `--socket`, if given.
    var socket: String?
    /// `--json`.
    var json: Bool
    /// `--app`, if given.
    var app: String?

    init?(_ arguments: ArraySlice<String>) {
        words = []
        json = false
        var rest = arguments
        while let argument = rest.popFirst() {
            if argument == "--json", !json {
                json = true
            } else if argument.hasPrefix("--socket") {
                guard socket == nil, let value = Self.value(of: "--socket", argument, &rest) else { return nil }
                socket = value
            } else if argument.hasPrefix("--app") {
                guard app == nil, let value = Self.value(of: "--app", argument, &rest) else { return nil }
                app = value
            } else if !argument.hasPrefix("-"), argument != "help" {
                words.append(argument)
            } else {
                return nil
            }
        }
    }

    /// Where the daemon is and how to print, as the command line says.
    var session: ClientSession {
        ClientSession(socketPath: ClientOptions.socketPath(socket), json: json)
    }

    /// The value of `option` given as `OPTION VALUE` (a value that does not start with `-`) or as
    /// `OPTION=VALUE` (not empty); nil for anything else, such as another option of the same
    /// prefix.
    private static func value(of option: String, _ argument: String, _ rest: inout ArraySlice<String>) -> String? {
        if argument == option {
            guard let value = rest.first, !value.hasPrefix("-") else { return nil }
            rest = rest.dropFirst()
            return value
        }
        guard argument.hasPrefix(option + "="), argument.count > option.count + 1 else { return nil }
        return String(argument.dropFirst(option.count + 1))
    }
}
