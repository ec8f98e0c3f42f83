import FoundationEssentials
public import WardenAPI
import WardenCore

extension WardenConnection {
    /// Makes one call of the table (`ControlAPI`) and decodes its answer.
    ///
    /// `arguments` fill the path's `{parameter}` segments in order; `query` is added as URL
    /// query parameters. The call is sent again after the daemon went away only when the table
    /// says it is idempotent. A refusal throws a `WardenClientError` with code `.refused`, the
    /// HTTP status and the daemon's error body; an answer that is not the expected JSON throws
    /// `.protocolViolation`.
    public func call<Body: Encodable, Reply>(
        _ endpoint: APIEndpoint<Body, Reply>, _ arguments: [String] = [], body: Body, query: [(String, String)] = []
    ) async throws -> Reply {
        let bytes = Array(try JSONEncoder().encode(body))
        return try await send(endpoint, arguments, bytes: bytes, query: query)
    }

    /// Makes one call of the table that sends no body.
    public func call<Reply>(
        _ endpoint: APIEndpoint<NoBody, Reply>, _ arguments: [String] = [], query: [(String, String)] = []
    ) async throws -> Reply {
        try await send(endpoint, arguments, bytes: nil, query: query)
    }

    /// Makes one call of the table whose body is JSON text sent as given (a push payload).
    public func call<Reply>(
        _ endpoint: APIEndpoint<RawJSON, Reply>, _ arguments: [String] = [], body: RawJSON,
        query: [(String, String)] = []
    ) async throws -> Reply {
        try await send(endpoint, arguments, bytes: Array(body.text.utf8), query: query)
    }

    /// The live journal (`ControlAPI.eventStream`) of the query's app and kind, following the daemon
    /// across restarts.
    public func events(
        _ query: JournalQuery, onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }
    ) -> WardenEventStream {
        var parameters: [(String, String)] = []
        if let app = query.app { parameters.append((JournalQuery.Parameter.app.rawValue, app)) }
        if let kind = query.kind { parameters.append((JournalQuery.Parameter.kind.rawValue, kind.rawValue)) }
        return events(
            path: ControlAPI.eventStream.path([], query: parameters), since: query.sinceID,
            onConnectionChange: onConnectionChange)
    }

    /// Makes one call of the table that sends no body on the calling thread, once, as
    /// `requestBlocking(method:path:body:idempotent:)` does: for a command-line tool's single call.
    public func callBlocking<Reply>(
        _ endpoint: APIEndpoint<NoBody, Reply>, _ arguments: [String] = [], query: [(String, String)] = []
    ) throws(WardenClientError) -> Reply {
        try callBlockingKeepingAnswer(endpoint, arguments, query: query).reply
    }

    /// As `callBlocking(_:_:query:)`, and the answer's JSON as the daemon sent it, once it has been
    /// read as the expected reply: for printing it unchanged.
    public func callBlockingKeepingAnswer<Reply>(
        _ endpoint: APIEndpoint<NoBody, Reply>, _ arguments: [String] = [], query: [(String, String)] = []
    ) throws(WardenClientError) -> (reply: Reply, answer: [UInt8]) {
        try sendBlocking(endpoint, arguments, bytes: nil, query: query)
    }

    /// As `callBlocking(_:_:query:)`, sending `body` as JSON: for a command-line tool's single call
    /// with a body (an app's call from a shell script).
    public func callBlocking<Body: Encodable, Reply>(
        _ endpoint: APIEndpoint<Body, Reply>, _ arguments: [String] = [], body: Body
    ) throws(WardenClientError) -> Reply {
        let bytes: [UInt8]
        do {
            bytes = Array(try JSONEncoder().encode(body))
        } catch {
            throw WardenClientError(
                .protocolViolation,
                "The request \(endpoint.method.rawValue) \(endpoint.path(arguments, query: [])) could not be written as JSON: \(error)."
            )
        }
        return try sendBlocking(endpoint, arguments, bytes: bytes, query: []).reply
    }

    /// Sends one call on the calling thread and reads its answer: the reply, and the answer's JSON
    /// as it came.
    private func sendBlocking<Body, Reply>(
        _ endpoint: APIEndpoint<Body, Reply>, _ arguments: [String], bytes: [UInt8]?, query: [(String, String)]
    ) throws(WardenClientError) -> (reply: Reply, answer: [UInt8]) {
        let path = endpoint.path(arguments, query: query)
        let method = endpoint.method.rawValue
        let response = try requestBlocking(method: method, path: path, body: bytes, idempotent: endpoint.idempotent)
        let reply = try Self.reply(
            to: method, path, status: response.status, body: response.body, pullingReader: endpoint.pullingReader)
        return (reply, response.body)
    }

    private func send<Body, Reply>(
        _ endpoint: APIEndpoint<Body, Reply>, _ arguments: [String], bytes: [UInt8]?, query: [(String, String)]
    ) async throws -> Reply {
        let path = endpoint.path(arguments, query: query)
        let method = endpoint.method.rawValue
        let response = try await request(method: method, path: path, body: bytes, idempotent: endpoint.idempotent)
        return try Self.reply(
            to: method, path, status: response.status, body: response.body, pullingReader: endpoint.pullingReader)
    }

    /// The decoded answer to a call, or the refusal it carries.
    private static func reply<Reply: Decodable>(
        to method: String, _ path: String, status: Int, body: [UInt8],
        pullingReader: (@Sendable ([UInt8], String) throws(LifecycleError) -> Reply)?
    ) throws(WardenClientError) -> Reply {
        guard (200..<300).contains(status) else { throw refusal(status: status, body: body, path: path) }
        // Bulk answers (the app list) are read without JSONDecoder's generic containers.
        if let pullingReader {
            do throws(LifecycleError) {
                return try pullingReader(body, "The answer to \(method) \(path)")
            } catch {
                throw WardenClientError(.protocolViolation, error.message, status: status)
            }
        }
        do {
            return try JSONDecoder().decode(Reply.self, from: Data(body))
        } catch {
            throw WardenClientError(
                .protocolViolation, "The answer to \(method) \(path) is not the expected JSON: \(error).",
                status: status)
        }
    }
}
