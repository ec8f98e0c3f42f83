import ArgumentParser
import Foundation
import WardenAPI
import WardenClient

/// The options every client command shares: where the daemon is and how to print.
struct ClientOptions: ParsableArguments {
    @Option(help: "The daemon's control socket (default: $APPWARDEN_SOCKET, else /run/appwarden.sock).")
    var socket: String?

    @Flag(help: "Print the daemon's answer as JSON, for scripts.")
    var json = false

    /// The socket to use: `--socket`, `APPWARDEN_SOCKET`, or the default.
    var socketPath: String {
        socket ?? ProcessInfo.processInfo.environment["APPWARDEN_SOCKET"] ?? "/run/appwarden.sock"
    }

    /// One attempt per call: a one-shot command reports an absent daemon at once (exit 3)
    /// rather than waiting for it; `watch` follows the daemon across restarts.
    var connection: WardenConnection { WardenConnection(socketPath: socketPath, retry: .once) }

    /// Sends one request and returns the answer's body; prints the daemon's refusal and exits 1,
    /// or exits 3 when the daemon cannot be reached.
    func call(_ method: String, _ path: String, body: [UInt8]? = nil) async throws -> [UInt8] {
        let answer: (status: Int, body: [UInt8])
        do {
            answer = try await connection.request(method: method, path: path, body: body)
        } catch {
            throw ClientExit.unreachable(socketPath, error)
        }
        guard answer.status < 300 else {
            let message =
                (try? JSONDecoder().decode(APIErrorBody.self, from: Data(answer.body)))?.message
                ?? "The daemon refused \(method) \(path) with HTTP \(answer.status)."
            throw ClientExit.refused(message)
        }
        return answer.body
    }

    /// Sends one request and decodes the answer.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, body: [UInt8]? = nil, as type: Answer.Type
    ) async throws -> Answer {
        let bytes = try await call(method, path, body: body)
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(bytes))
        } catch {
            throw ClientExit.unreachable(
                socketPath,
                WardenClientError(.protocolViolation, "The answer to \(method) \(path) is not what was expected."))
        }
    }

    /// Prints the raw JSON answer (with `--json`) or `text`.
    func output(_ bytes: [UInt8], text: @autoclosure () -> String) {
        if json {
            print(String(decoding: bytes, as: UTF8.self))
        } else {
            let line = text()
            if !line.isEmpty { print(line) }
        }
    }

    /// JSON text of an encodable request body.
    static func body(_ value: some Encodable) -> [UInt8] {
        (try? Array(JSONEncoder().encode(value))) ?? []
    }
}

/// How a client command ends when it did not succeed: exit 1 when the daemon refused (its
/// sentence printed), exit 3 when it cannot be reached.
enum ClientExit: Error, CustomStringConvertible {
    case refused(String)
    case unreachable(String, any Error)

    var description: String {
        switch self {
        case .refused(let message): message
        case .unreachable(let socket, let error):
            "Cannot reach the appwarden daemon at \(socket): \((error as? WardenClientError)?.message ?? "\(error)")"
        }
    }

    var exitCode: Int32 {
        switch self {
        case .refused: 1
        case .unreachable: 3
        }
    }
}

/// Percent-encodes a path segment or query value.
func encoded(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}
