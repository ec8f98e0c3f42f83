/// The HTTP methods of the control API.
public enum APIMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
}

/// What every entry of the table says, whatever its types.
public protocol APIRoute: Sendable {
    var method: APIMethod { get }
    /// The path with `{parameter}` segments: `/v1/apps/{app}/begin-task`.
    var template: String { get }
}

extension APIRoute {
    /// `METHOD /path/{parameter}`.
    public var route: String { "\(method.rawValue) \(template)" }

    /// The last fixed segment of the path: `begin-task`, `open`, `reload`.
    public var name: String {
        template.split(separator: "/").last { !$0.hasPrefix("{") }.map(String.init) ?? template
    }

    /// The path with each `{parameter}` replaced, in order, by an argument, percent-encoded.
    public func path(_ arguments: [String], query: [(String, String)] = []) -> String {
        var remaining = arguments[...]
        let segments = template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard segment.hasPrefix("{"), let argument = remaining.popFirst() else { return String(segment) }
            return percentEncoded(argument)
        }
        let tail = query.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&")
        return segments.joined(separator: "/") + (tail.isEmpty ? "" : "?" + tail)
    }
}

/// One call of the control API: method, path, the body it sends (`Body`) and the JSON it
/// answers with (`Reply`).
public struct APIEndpoint<Body: Sendable, Reply: Decodable & Sendable>: APIRoute {
    public let method: APIMethod
    public let template: String
    /// Whether sending it twice has the effect of sending it once, so that a client may send
    /// it again when the daemon went away before answering. Reads always are.
    public let idempotent: Bool

    public init(_ method: APIMethod, _ template: String, idempotent: Bool = false) {
        self.method = method
        self.template = template
        self.idempotent = idempotent || method == .get
    }
}

/// The body of a call that sends none.
public struct NoBody: Codable, Sendable, Equatable {
    public init() {}
}

/// A body sent as the JSON text given, unchanged: a push payload.
public struct RawJSON: Sendable, Equatable {
    public var text: String
    public init(_ text: String) { self.text = text }
}

/// Percent-encodes a path segment or query value: everything but letters, digits and `-._~`.
func percentEncoded(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            result.append(Character(Unicode.Scalar(byte)))
        default:
            result += "%" + String(byte, radix: 16, uppercase: true).leftPadded()
        }
    }
    return result
}

extension String {
    fileprivate func leftPadded() -> String { count == 1 ? "0" + self : self }
}
