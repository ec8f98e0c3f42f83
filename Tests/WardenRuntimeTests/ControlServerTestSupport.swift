import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WardenAPI
import WardenRuntime
import WardenTesting

/// A running control server on a socket in a fresh temporary directory, and an HTTP client
/// that talks to it over that socket.
struct ControlServerHarness {
    let socketPath: String
    let double: ControlServerDouble

    /// Starts a server for `double`, runs `body`, then stops the server and removes the directory.
    static func run(
        apps: [String] = ["mail", "maps"], heartbeat: Duration = .seconds(15),
        _ body: (ControlServerHarness) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("aw-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/control.sock"
        let double = ControlServerDouble(apps: apps)
        try await serve(double, on: socketPath, heartbeat: heartbeat) {
            try await body(ControlServerHarness(socketPath: socketPath, double: double))
        }
    }

    /// Runs a control server for `control` on `socketPath` while `body` runs.
    static func serve(
        _ control: any WardenControl, on socketPath: String, heartbeat: Duration = .seconds(15),
        _ body: () async throws -> Void
    ) async throws {
        let (listening, signal) = AsyncStream.makeStream(of: Void.self)
        let server = ControlServer(
            control: control, socketPath: socketPath, adminGroup: nil, logger: quietLogger,
            onListening: { signal.yield() }, heartbeat: heartbeat)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            for await _ in listening { break }
            do {
                try await body()
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    /// One request; returns the status and the body.
    func request(
        _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> (status: Int, body: String) {
        try await Self.request(socketPath: socketPath, method, path, body: body, headers: headers)
    }

    /// One request over the socket at `socketPath`; returns the status and the body.
    static func request(
        socketPath: String, _ method: HTTPMethod, _ path: String, body: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> (status: Int, body: String) {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw HarnessError(message: "The socket path \(socketPath) cannot form a URL.")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: buffer))
    }

    /// The JSON object of a body.
    static func object(_ body: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw HarnessError(message: "The body is not a JSON object: \(body)")
        }
        return object
    }

    /// The `error` code and `message` of an error body.
    static func error(_ body: String) throws -> APIErrorBody {
        try JSONDecoder().decode(APIErrorBody.self, from: Data(body.utf8))
    }
}

/// A logger that keeps the server's shutdown messages out of the test output.
let quietLogger: Logger = {
    var logger = Logger(label: "appwarden.control.test")
    logger.logLevel = .critical
    return logger
}()

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
