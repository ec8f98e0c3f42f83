import ArgumentParser
import FoundationEssentials
import Glibc
import WardenAPI
import WardenClient

/// The options every client command shares: where the daemon is and how to print.
struct ClientOptions: ParsableArguments, ClientContext {
    @Option(help: "The daemon's control socket (default: $APPWARDEN_SOCKET, else /run/appwarden.sock).")
    var socket: String?

    @Flag(help: "Print the daemon's answer as JSON, for scripts (errors too, as {\"error\", \"message\"}).")
    var json = false

    var socketPath: String { Self.socketPath(socket) }

    /// The socket to use: `socket` (`--socket`), `APPWARDEN_SOCKET`, or the default. Read with
    /// `getenv`: `ProcessInfo.environment` copies the whole environment into a dictionary at each use.
    static func socketPath(_ socket: String?) -> String {
        socket ?? getenv("APPWARDEN_SOCKET").map { String(cString: $0) } ?? "/run/appwarden.sock"
    }
}

/// The same two choices without the argument parser, for a command read without it
/// (`QuickCommandLine`).
struct ClientSession: ClientContext {
    var socketPath: String
    var json: Bool
}

/// Where the daemon is and how to print, and the calls a client command makes with them.
protocol ClientContext {
    /// The control socket.
    var socketPath: String { get }
    /// Whether to print the daemon's answer as JSON.
    var json: Bool { get }
}

extension ClientContext {
    /// One attempt per call: a one-shot command reports an absent daemon at once (exit 3)
    /// rather than waiting for it; `watch` follows the daemon across restarts.
    var connection: WardenConnection { WardenConnection(socketPath: socketPath, retry: .once) }

    /// Makes a call of the table that sends no body; a refusal exits 1, an absent daemon 3.
    func call<Reply>(
        _ endpoint: APIEndpoint<NoBody, Reply>, _ arguments: [String] = [], query: [(String, String)] = []
    ) async throws -> Reply {
        try await exiting { try await connection.call(endpoint, arguments, query: query) }
    }

    /// Makes a call of the table with a JSON body.
    func call<Body: Encodable, Reply>(_ endpoint: APIEndpoint<Body, Reply>, _ arguments: [String], body: Body)
        async throws -> Reply
    {
        try await exiting { try await connection.call(endpoint, arguments, body: body) }
    }

    /// Makes a call of the table whose body is JSON text sent as given.
    func call<Reply>(
        _ endpoint: APIEndpoint<RawJSON, Reply>, _ arguments: [String], body: RawJSON, query: [(String, String)]
    ) async throws -> Reply {
        try await exiting { try await connection.call(endpoint, arguments, body: body, query: query) }
    }

    /// Makes a call of the table that sends no body on this thread (`callBlockingKeepingAnswer`), for a
    /// command whose one call is all it does: no thread is started for it. Gives the reply and
    /// the answer's JSON as the daemon sent it (`printAnswer(_:text:)`).
    func callNowKeepingAnswer<Reply>(_ endpoint: APIEndpoint<NoBody, Reply>, _ arguments: [String] = [])
        throws(ClientExit) -> (reply: Reply, answer: [UInt8])
    {
        do throws(WardenClientError) {
            return try connection.callBlockingKeepingAnswer(endpoint, arguments)
        } catch {
            throw failure(for: error)
        }
    }

    /// Makes a call of the table that sends no body on this thread, for a command whose one call
    /// is all it does.
    func callNow<Reply>(_ endpoint: APIEndpoint<NoBody, Reply>, _ arguments: [String]) throws(ClientExit) -> Reply {
        try callNowKeepingAnswer(endpoint, arguments).reply
    }

    /// Makes a call of the table with a JSON body on this thread, for a command whose one call is
    /// all it does.
    func callNow<Body: Encodable, Reply>(_ endpoint: APIEndpoint<Body, Reply>, _ arguments: [String], body: Body)
        throws(ClientExit) -> Reply
    {
        do throws(WardenClientError) {
            return try connection.callBlocking(endpoint, arguments, body: body)
        } catch {
            throw failure(for: error)
        }
    }

    /// Runs a call, turning its failure into the command's exit.
    private func exiting<Reply>(_ call: () async throws -> Reply) async throws -> Reply {
        do {
            return try await call()
        } catch {
            throw failure(for: error)
        }
    }

    /// How a failed call ends the command: a refusal exits 1, anything else (an absent daemon) 3.
    private func failure(for error: any Error) -> ClientExit {
        if let error = error as? WardenClientError, error.code == .refused {
            return .refused(reason: error.reason ?? "refused", error.message)
        }
        return .unreachable(socketPath, error)
    }

    /// Prints `value` as JSON (with `--json`) or `text`.
    func output(_ value: some Encodable, text: @autoclosure () -> String) {
        printUnlessEmpty(json ? JSONOutput.text(value) : text())
    }

    /// Prints the daemon's answer as it came (with `--json`) or `text`.
    ///
    /// The daemon writes the JSON the command line prints (keys sorted, one line), so it need not
    /// be written again: a thousand apps' list took `JSONEncoder` longer than the rest of
    /// `status --json`. A daemon of another version may send members this one does not know;
    /// they are printed too.
    func printAnswer(_ answer: [UInt8], text: @autoclosure () -> String) {
        let line = answer.last == UInt8(ascii: "\n") ? answer.dropLast() : answer[...]
        printUnlessEmpty(json ? String(decoding: line, as: UTF8.self) : text())
    }

    private func printUnlessEmpty(_ line: String) {
        if !line.isEmpty { print(line) }
    }
}

/// JSON as the command line prints it: camelCase keys as the API sends them, sorted.
enum JSONOutput {
    static func text(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return #"{"error":"internal","message":"The answer could not be written as JSON."}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether the command line asks for JSON, read before (or without) parsing it, so that a
    /// usage error is JSON too.
    static var requested: Bool {
        CommandLine.arguments.dropFirst().contains("--json")
    }
}

/// How a client command ends when it did not succeed: exit 1 when the daemon refused (its
/// sentence printed) or the command could not do what was asked, exit 2 when it cannot be used
/// this way (`usage`), exit 3 when the daemon cannot be reached or is stopping (503,
/// `unavailable`: asking again once it has started may succeed).
enum ClientExit: Error, CustomStringConvertible {
    /// The daemon's error code (`notFound`, `conflict`, …) and sentence.
    case refused(reason: String, String)
    case unreachable(String, any Error)

    var description: String {
        switch self {
        case .refused(_, let message): message
        case .unreachable(let socket, let error):
            "Cannot reach the appwarden daemon at \(socket): \((error as? WardenClientError)?.message ?? "\(error)")"
        }
    }

    /// The error as `--json` prints it.
    var body: APIErrorBody {
        switch self {
        case .refused(let reason, let message): APIErrorBody(error: reason, message: message)
        case .unreachable: APIErrorBody(error: "unreachable", message: description)
        }
    }

    var exitCode: Int32 {
        switch self {
        case .refused(let reason, _) where reason == "unavailable": 3
        case .refused(let reason, _) where reason == "usage": 2
        case .refused: 1
        case .unreachable: 3
        }
    }
}
