public import WardenCore

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
    ///
    /// Written out rather than with `joined(separator:)`, which the standard library does not
    /// specialize for `[String]`: its first call in a process asks the runtime for a conformance,
    /// a scan of every conformance record of the executable, a part of each command's start.
    public func path(_ arguments: [String], query: [(String, String)] = []) -> String {
        var remaining = arguments[...]
        var path = ""
        for (index, segment) in template.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { path += "/" }
            if segment.hasPrefix("{"), let argument = remaining.popFirst() {
                path += percentEncoded(argument)
            } else {
                path.append(contentsOf: segment)
            }
        }
        for (index, (name, value)) in query.enumerated() {
            path += index == 0 ? "?" : "&"
            path += name + "=" + percentEncoded(value)
        }
        return path
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
    /// How a client reads the answer when `Reply` reads itself (`JSONValueDecodable`, the app
    /// list): chosen where the entry is declared, so that no call asks the runtime whether the
    /// type conforms (a scan of every conformance record of the executable). Nil: `JSONDecoder`.
    public let pullingReader: (@Sendable (_ json: [UInt8], _ subject: String) throws(LifecycleError) -> Reply)?

    public init(_ method: APIMethod, _ template: String, idempotent: Bool = false) {
        self.init(method, template, idempotent: idempotent, pullingReader: nil)
    }

    /// An entry whose answer reads itself value by value (`JSONValueDecodable`).
    public init(_ method: APIMethod, _ template: String, idempotent: Bool = false) where Reply: JSONValueDecodable {
        self.init(
            method, template, idempotent: idempotent,
            pullingReader: { json, subject throws(LifecycleError) in
                try Reply.decode(json: json, subject: subject)
            })
    }

    private init(
        _ method: APIMethod, _ template: String, idempotent: Bool,
        pullingReader: (@Sendable ([UInt8], String) throws(LifecycleError) -> Reply)?
    ) {
        self.method = method
        self.template = template
        self.idempotent = idempotent || method == .get
        self.pullingReader = pullingReader
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
