import FoundationEssentials
import Hummingbird
import NIOCore
import WardenAPI

extension ControlServer {
    /// A JSON answer with `status`: sorted keys, so answers are stable (`SortedJSONEncoder`).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let bytes: [UInt8]
        do {
            bytes = try SortedJSONEncoder.encode(value)
        } catch {
            bytes = Array(#"{"error":"internal","message":"The answer could not be encoded."}"#.utf8)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A JSON array of values encoded earlier (`KeptEncodings`), written into the answer's buffer
    /// in one pass, sized once: the app list of a thousand apps is a fifth of a megabyte.
    static func json(_ elements: [SortedJSONEncoder.Fragment]) -> Response {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(elements.reduce(2) { $0 + $1.bytes.count + 1 })
        buffer.writeInteger(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeBytes(element.bytes)
        }
        buffer.writeInteger(UInt8(ascii: "]"))
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// Reads the whole body (at most `maximumBodyBytes`).
    static func bodyBytes(of request: Request) async throws -> [UInt8] {
        let buffer = try await request.body.collect(upTo: maximumBodyBytes)
        return Array(buffer.readableBytesView)
    }

    /// Decodes a JSON body, refusing a missing, malformed or incomplete one with a sentence that
    /// names the route, the field and an example of a good body.
    static func decode<Body: Decodable>(
        _ type: Body.Type, from request: Request, example: String
    ) async throws -> Body {
        let bytes = try await bodyBytes(of: request)
        let route = "\(request.method) \(request.uri.path)"
        guard !bytes.isEmpty else {
            throw ControlServerFailure.invalid("\(route) needs a JSON body such as \(example).")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch DecodingError.keyNotFound(let key, _) {
            throw ControlServerFailure.invalid(
                "The body of \(route) lacks the field \"\(key.stringValue)\"; send a JSON object such as \(example).")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            let subject = field.isEmpty ? "The body of \(route)" : "The field \"\(field)\" in the body of \(route)"
            throw ControlServerFailure.invalid(
                "\(subject) has the wrong type; send a JSON object such as \(example).")
        } catch {
            throw ControlServerFailure.invalid(
                "The body of \(route) is not valid JSON; send a JSON object such as \(example).")
        }
    }
}

extension ControlServerFailure {
    /// How long a caller refused with 503 should wait before asking again, seconds.
    static let retryAfterSeconds = 1

    /// The JSON answer of this refusal; a 503 says with `Retry-After` when to ask again.
    func response() -> Response {
        var response = ControlServer.json(body, status: status)
        if status == .serviceUnavailable {
            response.headers[.retryAfter] = String(Self.retryAfterSeconds)
        }
        return response
    }
}
