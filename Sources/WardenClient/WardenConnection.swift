import Foundation
import Synchronization
public import WardenAPI

/// A connection to the appwarden daemon's control socket: HTTP/1.1 over a Unix-domain socket,
/// one request per connection, and server-sent event streams.
///
/// Blocking socket I/O runs on its own thread, never on the caller's task.
public struct WardenConnection: Sendable {
    /// The daemon's socket.
    public let socketPath: String

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends one request and returns the status and the whole body.
    ///
    /// `path` includes the query (`/v1/events?app=mail`); a non-nil `body` is sent as JSON.
    public func request(method: String, path: String, body: [UInt8]? = nil) async throws -> (
        status: Int, body: [UInt8]
    ) {
        let socketPath = socketPath
        let message = Self.requestBytes(method: method, path: path, body: body, accept: "application/json")
        let noBody = method.uppercased() == "HEAD"
        return try await Self.onThread {
            let socket = try UnixSocket(connectingTo: socketPath)
            try socket.writeAll(message)
            var decoder = HTTPResponseDecoder()
            decoder.expectsNoBody = noBody
            var status = 0
            var received: [UInt8] = []
            while true {
                let bytes = try socket.readSome()
                let parts = bytes.isEmpty ? try decoder.finish() : try decoder.feed(bytes)
                for part in parts {
                    switch part {
                    case .head(let code, _): status = code
                    case .body(let chunk): received += chunk
                    case .end: return (status: status, body: received)
                    }
                }
                if bytes.isEmpty {
                    throw WardenClientError(.protocolViolation, "The daemon closed the connection without an answer.")
                }
            }
        }
    }

    /// Subscribes to a server-sent event stream of journal entries (`/v1/events/stream?app=NAME`).
    ///
    /// Each event's `data:` is a `JournalEntry` in JSON. The stream ends when the daemon closes
    /// it and fails with a `WardenClientError` when the daemon refuses or the data is not an entry.
    /// Cancelling the consuming task closes the connection.
    public func stream(path: String) -> AsyncThrowingStream<JournalEntry, any Error> {
        let socketPath = socketPath
        let message = Self.requestBytes(method: "GET", path: path, body: nil, accept: "text/event-stream")
        let (stream, continuation) = AsyncThrowingStream<JournalEntry, any Error>.makeStream()
        let holder = SocketHolder()
        continuation.onTermination = { _ in holder.cancel() }
        let thread = Thread {
            do {
                let socket = try UnixSocket(connectingTo: socketPath)
                guard holder.adopt(socket) else { return continuation.finish() }
                try socket.writeAll(message)
                try Self.pump(socket, path: path, into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: holder.isCancelled ? nil : error)
            }
        }
        thread.name = "appwarden-events"
        thread.start()
        return stream
    }

    /// Reads the streaming response and yields each entry as its event completes.
    private static func pump(
        _ socket: UnixSocket, path: String, into continuation: AsyncThrowingStream<JournalEntry, any Error>.Continuation
    ) throws {
        var decoder = HTTPResponseDecoder()
        var parser = ServerSentEventParser()
        var status = 0
        var errorBody: [UInt8] = []
        let jsonDecoder = JSONDecoder()
        while true {
            let bytes = try socket.readSome()
            let parts = bytes.isEmpty ? try decoder.finish() : try decoder.feed(bytes)
            for part in parts {
                switch part {
                case .head(let code, _): status = code
                case .body(let chunk) where status >= 300: errorBody += chunk
                case .body(let chunk):
                    for event in parser.feed(chunk) {
                        do {
                            continuation.yield(try jsonDecoder.decode(JournalEntry.self, from: Data(event.data.utf8)))
                        } catch {
                            throw WardenClientError(
                                .protocolViolation,
                                "The event \(event.id.map { "with id \($0) " } ?? "")on \(path) is not a journal entry: \(error)."
                            )
                        }
                    }
                case .end:
                    if status >= 300 { throw refusal(status: status, body: errorBody, path: path) }
                    return
                }
            }
            if bytes.isEmpty { return }
        }
    }

    /// The error for a refused request, carrying the daemon's sentence when it sent one.
    static func refusal(status: Int, body: [UInt8], path: String) -> WardenClientError {
        if let error = try? JSONDecoder().decode(APIErrorBody.self, from: Data(body)) {
            return WardenClientError(.refused, error.message, status: status)
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return WardenClientError(.refused, "The daemon refused \(path) with HTTP \(status): \(text)", status: status)
    }

    static func requestBytes(method: String, path: String, body: [UInt8]?, accept: String) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: \(accept)\r\nConnection: close\r\n"
        if let body {
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        } else if method != "GET" && method != "HEAD" {
            head += "Content-Length: 0\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    /// Runs blocking work on a thread of its own and resumes the caller with its result.
    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "appwarden-request"
            thread.start()
        }
    }
}

/// The socket of a live stream, so that cancelling the stream can wake its blocked reader.
private final class SocketHolder: Sendable {
    private struct State {
        var socket: UnixSocket?
        var cancelled = false
    }
    private let state = Mutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Keeps the socket; false when the stream was cancelled first.
    func adopt(_ socket: UnixSocket) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.socket = socket
            return true
        }
    }

    func cancel() {
        let socket = state.withLock { state in
            state.cancelled = true
            return state.socket
        }
        socket?.shutDown()
    }
}
