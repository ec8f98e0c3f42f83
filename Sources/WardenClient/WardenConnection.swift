import FoundationEssentials
import Synchronization
public import WardenAPI
import WardenCore
import WardenPlatform

/// A connection to the appwarden daemon's control socket: HTTP/1.1 over a Unix-domain socket,
/// one request per connection, and server-sent event streams.
///
/// A call made while the daemon is away (restarting, or not started yet) waits for it, trying
/// again with backoff for `retry.callWindow` (10 seconds by default), when that is safe: always
/// when the socket is missing or refuses connections, since nothing was sent then; and also
/// when the daemon went away after the request was sent, for idempotent calls only (`GET` and
/// `HEAD`, or calls made with `idempotent: true`). Otherwise the call fails with a sentence
/// saying that it may or may not have taken effect. A daemon that is stopping answers 503 with
/// `Retry-After`; an idempotent call then waits at least that long and asks again (the daemon
/// that starts next answers it), within the same window. `events(path:since:onConnectionChange:)`
/// follows an event stream across daemon restarts. The blocking calls
/// (`requestBlocking(method:path:body:idempotent:)`, `callBlocking(_:_:query:)`) are the
/// exception: they try once, whatever `retry` says.
///
/// A daemon that accepted a call and then says nothing (stuck, or not a daemon at all) fails the
/// call once `answerTimeout` (30 seconds by default) passes without a byte of the answer; such a
/// call is not tried again. Event streams have no such limit: they may be quiet for hours.
///
/// Blocking socket I/O runs on its own thread, never on the caller's task, except in the
/// blocking calls, which run it on the caller's thread.
public struct WardenConnection: Sendable {
    /// The daemon's socket.
    public let socketPath: String
    /// How calls and event streams wait for a daemon that is away.
    public var retry: RetryPolicy
    /// How long a call waits for the next part of the answer, once connected, before it fails;
    /// nil waits as long as the connection stays open.
    public var answerTimeout: Duration?

    public init(socketPath: String, retry: RetryPolicy = RetryPolicy(), answerTimeout: Duration? = .seconds(30)) {
        self.socketPath = socketPath
        self.retry = retry
        self.answerTimeout = answerTimeout
    }

    /// Sends one request and returns the status and the whole body, waiting for a daemon that is
    /// away as `retry` allows.
    ///
    /// `path` includes the query (`/v1/events?app=mail`); a non-nil `body` is sent as JSON.
    /// `idempotent` says whether the request may be sent again when the daemon went away after
    /// receiving it; nil means only `GET` and `HEAD` may.
    public func request(method: String, path: String, body: [UInt8]? = nil, idempotent: Bool? = nil) async throws
        -> (status: Int, body: [UInt8])
    {
        let repeatable = idempotent ?? Self.isRead(method)
        let clock = ContinuousClock()
        let deadline = clock.now + retry.callWindow
        var backoff = Backoff(retry)
        while true {
            do {
                let answer = try await attempt(method: method, path: path, body: body)
                // A daemon that is stopping took no part of the call: ask again, no sooner than it said.
                if answer.status == 503, repeatable {
                    let pause = max(backoff.next(), answer.retryAfter ?? .zero)
                    if clock.now + pause <= deadline {
                        try await Task.sleep(for: pause)
                        continue
                    }
                }
                return (answer.status, answer.body)
            } catch let failure as CallFailure {
                let pause = backoff.next()
                guard failure.mayRetry(repeatable: repeatable), clock.now + pause <= deadline else {
                    throw failure.error(method: method, path: path, repeatable: repeatable, window: retry.callWindow)
                }
                try await Task.sleep(for: pause)
            }
        }
    }

    /// Sends one request on the calling thread, once, and returns the status and the whole body.
    ///
    /// For a command-line tool that makes one call and has nothing else to run meanwhile: the
    /// call blocks the thread it is made on and does not wait for a daemon that is away (as
    /// `RetryPolicy.once`), so no thread is started for it. Everything else should use
    /// `request(method:path:body:idempotent:)`. `idempotent` only words the error of a call cut
    /// off after it was sent (nil: `GET` and `HEAD` are).
    public func requestBlocking(method: String, path: String, body: [UInt8]? = nil, idempotent: Bool? = nil)
        throws(WardenClientError) -> (status: Int, body: [UInt8])
    {
        let repeatable = idempotent ?? Self.isRead(method)
        let message = Self.requestBytes(method: method, path: path, body: body, accept: "application/json")
        do throws(CallFailure) {
            let answer = try Self.exchange(
                message, socketPath: socketPath, noBody: Self.hasNoBody(method), answerTimeout: answerTimeout)
            return (answer.status, answer.body)
        } catch {
            throw error.error(method: method, path: path, repeatable: repeatable, window: .zero)
        }
    }

    /// One attempt of a request, failing with a `CallFailure` that says how far it got.
    private func attempt(method: String, path: String, body: [UInt8]?) async throws -> (
        status: Int, body: [UInt8], retryAfter: Duration?
    ) {
        let socketPath = socketPath
        let message = Self.requestBytes(method: method, path: path, body: body, accept: "application/json")
        let noBody = Self.hasNoBody(method)
        let answerTimeout = answerTimeout
        return try await Self.onThread {
            try Self.exchange(message, socketPath: socketPath, noBody: noBody, answerTimeout: answerTimeout)
        }
    }

    /// A sentence saying what `path` is when it exists and is not a socket (a directory, a
    /// regular file, …), where no daemon will ever answer; nil when it is a socket or is missing.
    /// Every call and stream fails at once with this sentence on such a path, without waiting.
    public static func notASocket(_ path: String) -> String? {
        UnixSocket.notASocket(path)
    }

    /// Whether `method` only reads (`GET`, `HEAD`), and so may be sent again.
    private static func isRead(_ method: String) -> Bool {
        ["GET", "HEAD"].contains(method.uppercased())
    }

    /// Whether the answer to `method` has no body whatever its headers say (`HEAD`).
    private static func hasNoBody(_ method: String) -> Bool {
        method.uppercased() == "HEAD"
    }

    /// Connects, sends `message` and reads the whole answer, blocking the calling thread; each
    /// write and read gives up after `answerTimeout` without progress.
    private static func exchange(
        _ message: [UInt8], socketPath: String, noBody: Bool, answerTimeout: Duration?
    ) throws(CallFailure) -> (status: Int, body: [UInt8], retryAfter: Duration?) {
        let socket: UnixSocket
        do throws(UnixSocket.ConnectFailure) {
            socket = try UnixSocket(connectingTo: socketPath)
        } catch {
            throw CallFailure(stage: error.isTransient ? .notSent : .unusable, cause: error.error)
        }
        if let answerTimeout { socket.limitWaits(to: answerTimeout) }
        var decoder = HTTPResponseDecoder()
        decoder.expectsNoBody = noBody
        var status = 0
        var retryAfter: Duration?
        var received: [UInt8] = []
        var bytes: [UInt8] = []
        do throws(WardenClientError) {
            try socket.writeAll(message)
            while true {
                bytes = try socket.readSome()
                let parts = bytes.isEmpty ? try decoder.finish() : try decoder.feed(bytes)
                for part in parts {
                    switch part {
                    case .head(let code, let headers):
                        status = code
                        retryAfter = headers.first { $0.0.lowercased() == "retry-after" }
                            .flatMap { Int($0.1.trimmingWhitespace()) }.map { .seconds(max(0, $0)) }
                    case .body(let chunk): received += chunk
                    case .end: return (status: status, body: received, retryAfter: retryAfter)
                    }
                }
                if bytes.isEmpty {
                    throw WardenClientError(
                        .protocolViolation, "The daemon closed the connection without an answer.")
                }
            }
        } catch {
            // A connection that ends early or fails is a daemon going away; a malformed
            // answer from a daemon that is there is not something to try again.
            if socket.timedOut { throw CallFailure(stage: .unanswered, cause: error) }
            let closed = error.code == .connection || bytes.isEmpty
            throw CallFailure(stage: closed ? .sentNoAnswer : .unusable, cause: error)
        }
    }

    /// Subscribes to a server-sent event stream of journal entries (`/v1/events/stream?app=NAME`),
    /// one connection, no reconnection.
    ///
    /// Each event's `data:` is a `JournalEntry` in JSON. The stream ends when the daemon closes
    /// it and fails with a `WardenClientError` when the connection breaks, the daemon refuses or
    /// the data is not an entry. Cancelling the consuming task closes the connection.
    public func stream(path: String) -> AsyncThrowingStream<JournalEntry, any Error> {
        let (stream, continuation) = AsyncThrowingStream<JournalEntry, any Error>.makeStream()
        let holder = SocketHolder()
        continuation.onTermination = { _ in holder.cancel() }
        openStream(
            path: path, lastEventID: nil, holder: holder,
            yield: { item in
                if case .entry(let entry) = item { continuation.yield(entry) }
            },
            finish: { error in continuation.finish(throwing: (error as? StreamFailure)?.cause ?? error) })
        return stream
    }

    /// Follows a server-sent event stream of journal entries across daemon restarts.
    ///
    /// `path` is the stream without a resume point (`/v1/events/stream?app=mail`); the first
    /// connection starts after `since` when given (live otherwise). When the connection drops,
    /// the daemon closes the stream or the socket is missing, it connects again with backoff,
    /// asking for the entries after the last id it delivered (`since=` and `Last-Event-ID`),
    /// so that no entry is lost and none is delivered twice. It fails when the daemon refuses
    /// the stream (a 4xx answer, such as an app the new policy does not declare), when the data
    /// is not an entry, when the first connection cannot be made within `retry.callWindow` (unless a
    /// daemon answered that it is stopping: the one that takes over is then waited for as after a
    /// connection), or
    /// when the daemon stays away longer than `retry.streamOutageLimit`. `onConnectionChange`
    /// hears each loss and each return of the connection.
    public func events(
        path: String, since: Int64? = nil,
        onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }
    ) -> WardenEventStream {
        WardenEventStream(connection: self, path: path, since: since, onConnectionChange: onConnectionChange)
    }

    /// One connection to a stream, yielding `.connected` once the daemon accepted it, then each
    /// entry. It finishes when the daemon ends the stream and fails with a `StreamFailure`.
    func connectOnce(path: String, lastEventID: Int64?) -> AsyncThrowingStream<StreamItem, any Error> {
        let (stream, continuation) = AsyncThrowingStream<StreamItem, any Error>.makeStream()
        let holder = SocketHolder()
        continuation.onTermination = { _ in holder.cancel() }
        openStream(
            path: path, lastEventID: lastEventID, holder: holder, yield: { continuation.yield($0) },
            finish: { continuation.finish(throwing: $0) })
        return stream
    }

    /// Connects and reads one stream on a thread of its own, handing each item to `yield` and
    /// the end (nil, or a `StreamFailure`) to `finish`; cancelling `holder` closes it.
    private func openStream(
        path: String, lastEventID: Int64?, holder: SocketHolder, yield: @escaping @Sendable (StreamItem) -> Void,
        finish: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let socketPath = socketPath
        var extra: [(String, String)] = []
        if let lastEventID { extra.append(("Last-Event-ID", String(lastEventID))) }
        let message = Self.requestBytes(
            method: "GET", path: path, body: nil, accept: "text/event-stream", extraHeaders: extra)
        do {
            try DetachedThread.start(name: "appwarden-events") {
                do {
                    let socket: UnixSocket
                    do throws(UnixSocket.ConnectFailure) {
                        socket = try UnixSocket(connectingTo: socketPath)
                    } catch {
                        throw StreamFailure(cause: error.error, mayRetry: error.isTransient)
                    }
                    guard holder.adopt(socket) else { return finish(nil) }
                    do throws(WardenClientError) {
                        try socket.writeAll(message)
                    } catch {
                        throw StreamFailure(cause: error, mayRetry: true)
                    }
                    try Self.pump(socket, path: path, yield: yield)
                    finish(nil)
                } catch {
                    finish(holder.isCancelled ? nil : error)
                }
            }
        } catch {
            finish(error)
        }
    }

    /// Reads the streaming response and yields each entry as its event completes.
    private static func pump(
        _ socket: UnixSocket, path: String, yield: @Sendable (StreamItem) -> Void
    ) throws(StreamFailure) {
        var decoder = HTTPResponseDecoder()
        var parser = ServerSentEventParser()
        var status = 0
        var errorBody: [UInt8] = []
        let jsonDecoder = JSONDecoder()
        while true {
            var bytes: [UInt8] = []
            let parts: [HTTPResponseDecoder.Part]
            do throws(WardenClientError) {
                bytes = try socket.readSome()
                parts = bytes.isEmpty ? try decoder.finish() : try decoder.feed(bytes)
            } catch {
                // A read that fails or a connection closed early is a daemon that went away; a
                // malformed answer is not.
                throw StreamFailure(cause: error, mayRetry: error.code == .connection || bytes.isEmpty)
            }
            for part in parts {
                switch part {
                case .head(let code, _):
                    status = code
                    if code < 300 { yield(.connected) }
                case .body(let chunk) where status >= 300: errorBody += chunk
                case .body(let chunk):
                    for event in parser.feed(chunk) {
                        do {
                            let entry = try jsonDecoder.decode(JournalEntry.self, from: Data(event.data.utf8))
                            yield(.entry(entry))
                        } catch {
                            throw StreamFailure(
                                cause: WardenClientError(
                                    .protocolViolation,
                                    "The event \(event.id.map { "with id \($0) " } ?? "")on \(path) is not a journal entry: \(error)."
                                ), mayRetry: false)
                        }
                    }
                case .end:
                    if status >= 300 {
                        // A daemon that is starting or stopping may answer 503; anything else
                        // is a refusal that asking again does not change.
                        throw StreamFailure(
                            cause: refusal(status: status, body: errorBody, path: path), mayRetry: status == 503)
                    }
                    return
                }
            }
            if bytes.isEmpty { return }
        }
    }

    /// The error for a refused request, carrying the daemon's sentence when it sent one.
    static func refusal(status: Int, body: [UInt8], path: String) -> WardenClientError {
        if let error = try? JSONDecoder().decode(APIErrorBody.self, from: Data(body)) {
            return WardenClientError(.refused, error.message, status: status, reason: error.error)
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return WardenClientError(.refused, "The daemon refused \(path) with HTTP \(status): \(text)", status: status)
    }

    static func requestBytes(
        method: String, path: String, body: [UInt8]?, accept: String, extraHeaders: [(String, String)] = []
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: \(accept)\r\nConnection: close\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
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
            do {
                try DetachedThread.start(name: "appwarden-request") {
                    continuation.resume(with: Result { try work() })
                }
            } catch {
                continuation.resume(throwing: error)
            }
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
