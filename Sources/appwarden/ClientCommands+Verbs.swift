import ArgumentParser
import FoundationEssentials
import WardenAPI
import WardenClient
import WardenCore
import WardenPlatform

/// `appwarden open APP`: the user taps the app's icon.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Open an app: launch it, or bring it back from background.",
        discussion: """
            A launch is watched for --settle (1s by default): when the launch fails or the app's \
            process ends within it, the command exits 1 and says why (with --json, as \
            {"error": "launchFailed", "message": ...}).
            """)
    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.") var app: String
    @Option(help: "How long a launch is watched for the app ending at once (\"1s\", \"500ms\"; \"0s\" not at all).")
    var settle: String = "1s"

    func validate() throws {
        guard DurationFormat.parse(settle) != nil else {
            throw ValidationError("--settle must be a duration such as \"1s\" or \"0s\", not \"\(settle)\".")
        }
    }

    func run() async throws {
        let window = DurationFormat.parse(settle) ?? .zero
        // Whether the open launches the app, and the newest journal entry before it. A read that
        // is refused leaves the refusal to the open itself (an unknown app, a stopping daemon); a
        // daemon that cannot be reached, or does not answer, ends the command at once.
        var watched: Int64?
        if window > .zero,
            try await unlessRefused({ try await client.call(ControlAPI.app, [app]) })?.state == .notRunning
        {
            let query = JournalQuery(limit: 1, newest: true).parameters
            watched = try await unlessRefused({ try await client.call(ControlAPI.events, query: query) })?.last?.id
        }
        let done = try await client.call(ControlAPI.open, [app])
        if let after = watched,
            let failure = try await LaunchWatch(client: client, app: app, after: after).failure(within: window)
        {
            throw ClientExit.refused(reason: "launchFailed", failure)
        }
        client.output(done, text: "")
    }

    /// The reply of `read`, or nil when the daemon refused it.
    private func unlessRefused<Reply>(_ read: () async throws -> Reply) async throws -> Reply? {
        do {
            return try await read()
        } catch ClientExit.refused {
            return nil
        }
    }
}

/// Watches an app's journal after a launch for the app ending again: what `open` reports.
struct LaunchWatch {
    let client: ClientOptions
    let app: String
    /// The id of the newest journal entry before the launch.
    let after: Int64

    /// The sentence saying why the app is not running, when its process ended (or never
    /// started) within `window`; nil when it is still running at the end of the window.
    func failure(within window: Duration) async throws -> String? {
        let connection = WardenConnection(socketPath: client.socketPath, retry: .once)
        let (app, after) = (app, after)
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var decisions: [String] = []
                // The open was accepted: a watch that cannot be made says nothing of the launch.
                do {
                    for try await entry in connection.events(JournalQuery(app: app, sinceID: after)) {
                        switch entry.event {
                        case .decision(let text):
                            decisions.append(text)
                        case .stateChange(_, .notRunning, let because):
                            let reasons = decisions.isEmpty ? "" : " " + decisions.joined(separator: " ")
                            return "\(app) did not stay running: it became notRunning because \(because).\(reasons)"
                        default:
                            continue
                        }
                    }
                } catch {
                    return nil
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: window)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// `appwarden force-quit APP`: the user swipes the app away.
struct ForceQuitCommand: AppVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "force-quit",
        abstract: "Force-quit an app: terminate it, delete its saved state, and wake it no more until opened.")
    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.") var app: String

}

/// `appwarden reset APP`: the app is reinstalled.
struct ResetCommand: AppVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract:
            "Reset an app as if reinstalled: terminate it, delete its state, fetch and open history, rotate its token."
    )
    @OptionGroup var client: ClientOptions
    @Argument(help: "The app.") var app: String

}

/// An operator verb that names one app: `open`, `force-quit`, `reset`.
protocol AppVerbCommand: AsyncParsableCommand {
    var client: ClientOptions { get }
    var app: String { get }
}

extension AppVerbCommand {
    func run() async throws {
        try VerbCall.perform(Self.configuration.commandName ?? "", app: app, through: client)
    }
}

/// A verb that names no app: `home`, `overlay`, `overlay-end`, `lock`, `unlock`.
protocol ScreenVerbCommand: AsyncParsableCommand {
    var client: ClientOptions { get }
}

extension ScreenVerbCommand {
    func run() async throws {
        try VerbCall.perform(Self.configuration.commandName ?? "", app: nil, through: client)
    }
}

/// An operator verb that is one call: `force-quit APP`, `reset APP`, and the verbs that name no
/// app (`home`, `overlay`, `overlay-end`, `lock`, `unlock`), made on the command's thread whether
/// the argument parser read the command line or `quickArguments(_:)` did. (`open` watches the
/// launch as well, and goes through the parser.)
enum VerbCall {
    /// Makes the call of the verb `name`, for `app` when the verb names one, and prints the
    /// answer (nothing, or the answer as JSON with `--json`).
    static func perform(_ name: String, app: String?, through client: some ClientContext) throws(ClientExit) {
        let table = app == nil ? ControlAPI.screenVerbs : ControlAPI.appVerbs
        guard let endpoint = table.first(where: { $0.name == name }) else { return }
        client.output(try client.callNow(endpoint, app.map { [$0] } ?? []), text: "")
    }

    /// `VERB [APP] [--json] [--socket PATH]` read without the argument parser
    /// (`QuickCommandLine`): the verb, its app when it names one, and the session. Nil for any
    /// other command line, `open` included, which the parser reads.
    static func quickArguments(_ arguments: ArraySlice<String>) -> (name: String, app: String?, session: ClientSession)?
    {
        var rest = arguments
        guard let name = rest.popFirst(), name != ControlAPI.open.name, let line = QuickCommandLine(rest),
            line.app == nil
        else { return nil }
        if line.words.isEmpty, ControlAPI.screenVerbs.contains(where: { $0.name == name }) {
            return (name, nil, line.session)
        }
        if line.words.count == 1, ControlAPI.appVerbs.contains(where: { $0.name == name }) {
            return (name, line.words[0], line.session)
        }
        return nil
    }
}

/// `appwarden home`.
struct HomeCommand: ScreenVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "home", abstract: "Go to the home screen: every foreground app goes to background.")
    @OptionGroup var client: ClientOptions
}

/// `appwarden overlay`.
struct OverlayCommand: ScreenVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlay", abstract: "Cover the screen (shade, app switcher): active apps become inactive.")
    @OptionGroup var client: ClientOptions
}

/// `appwarden overlay-end`.
struct OverlayEndCommand: ScreenVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "overlay-end", abstract: "Uncover the screen: the apps under the overlay become active again.")
    @OptionGroup var client: ClientOptions
}

/// `appwarden lock`.
struct LockCommand: ScreenVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Lock the screen: foreground apps go to background and task clocks pause.")
    @OptionGroup var client: ClientOptions
}

/// `appwarden unlock`.
struct UnlockCommand: ScreenVerbCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Unlock the screen: background-task clocks run again.")
    @OptionGroup var client: ClientOptions
}

/// `appwarden push APP PAYLOAD [--id ID] [--token]`: a silent push.
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send a silent push: a JSON payload of at most push.max_payload_bytes (4096 bytes by default).",
        discussion: """
            Only a payload with {"aps":{"content-available":1}} wakes the app. PAYLOAD "-" reads the \
            payload from standard input. Prints what became of the push: delivered, coalesced, \
            pendingLaunch, waitingForMemory, notWoken or duplicate.
            """
    )
    @OptionGroup var client: ClientOptions
    @Argument(help: "The app, or with --token a device token.") var target: String
    @Argument(help: "The JSON payload, or - to read it from standard input.") var payload: String
    @Option(help: "The notification id; a notification id is delivered once.") var id: String?
    @Flag(help: "TARGET is a device token from register-push, not an app.") var token = false

    func run() async throws {
        let text =
            payload == "-"
            ? Self.withoutFinalNewline(String(decoding: StandardStream.readInput(), as: UTF8.self))
            : payload
        let answer = try await client.call(
            token ? ControlAPI.pushToken : ControlAPI.push, [target], body: RawJSON(text),
            query: id.map { [("id", $0)] } ?? [])
        client.output(answer, text: answer.disposition)
    }

    /// The payload as read from standard input, without the newline that ends its last line
    /// (`echo` and here-documents add one).
    static func withoutFinalNewline(_ text: String) -> String {
        var text = text
        if text.hasSuffix("\n") || text.hasSuffix("\r\n") { text.removeLast() }
        return text
    }
}

/// `appwarden policy reload [--restart-changed]`: the daemon re-reads its policy file.
struct PolicyReloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract:
            "Make the running daemon re-read its policy file; a bad file is refused whole and the old policy stays.",
        discussion: """
            Prints the apps added, removed and changed, and what happens to each: a removed app that runs \
            is terminated gracefully; a running app whose command, arguments, environment, working directory, \
            user or tasks_max changed keeps its process and is relaunched with the new settings at its next \
            launch, or now with --restart-changed (and opened again if it was in the foreground); other \
            changes apply at once. Then a warning for each app whose command cannot be found here, as \
            policy check gives, and for each [hooks] command the policy before it did not run.
            """
    )
    @OptionGroup var client: ClientOptions
    @Flag(help: "Restart running apps whose launch settings changed now, not at their next launch.")
    var restartChanged = false

    func run() async throws {
        let query = restartChanged ? [("restartChanged", "true")] : []
        let answer = try await client.call(ControlAPI.reloadPolicy, query: query)
        let warnings = answer.warnings.map { "warning: \($0)" }
        client.output(answer, text: ([answer.message] + answer.sentences + warnings).joined(separator: "\n"))
    }
}
