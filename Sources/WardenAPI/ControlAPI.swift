/// The control API's calls in one table: each app call, operator verb and read with its
/// method, path, request body and reply type. The server registers its routes from it,
/// `WardenClient` builds its requests from it and `docs/openapi.yaml` lists the same routes.
public enum ControlAPI {
    // MARK: App calls (`/v1/apps/{app}/…`, an app's own processes or an operator)

    public static let ready = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/apps/{app}/ready")
    public static let beginTask = APIEndpoint<ControlRequests.BeginTask, ControlReplies.TaskBegun>(
        .post, "/v1/apps/{app}/begin-task")
    public static let endTask = APIEndpoint<ControlRequests.EndTask, ControlReplies.Done>(
        .post, "/v1/apps/{app}/end-task")
    public static let timeRemaining = APIEndpoint<NoBody, ControlReplies.TimeRemaining>(
        .get, "/v1/apps/{app}/time-remaining")
    public static let completeFetch = APIEndpoint<ControlRequests.Completion, ControlReplies.Done>(
        .post, "/v1/apps/{app}/complete-fetch")
    public static let completePush = APIEndpoint<ControlRequests.Completion, ControlReplies.Done>(
        .post, "/v1/apps/{app}/complete-push")
    public static let fetchInterval = APIEndpoint<ControlRequests.FetchInterval, ControlReplies.Done>(
        .post, "/v1/apps/{app}/fetch-interval", idempotent: true)
    public static let registerPush = APIEndpoint<NoBody, ControlReplies.DeviceToken>(
        .post, "/v1/apps/{app}/register-push", idempotent: true)
    public static let acquire = APIEndpoint<ControlRequests.Resource, ControlReplies.Done>(
        .post, "/v1/apps/{app}/acquire")
    public static let release = APIEndpoint<ControlRequests.Resource, ControlReplies.Done>(
        .post, "/v1/apps/{app}/release")
    public static let reportStatus = APIEndpoint<ControlRequests.StatusReport, ControlReplies.Done>(
        .post, "/v1/apps/{app}/report-status", idempotent: true)

    // MARK: Operator verbs (root or the socket's group)

    public static let open = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/open/{app}")
    public static let forceQuit = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/force-quit/{app}")
    public static let reset = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/reset/{app}")
    public static let home = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/home")
    public static let overlay = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/overlay")
    public static let overlayEnd = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/overlay-end")
    public static let lock = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/lock")
    public static let unlock = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/unlock")
    /// A silent push to an app; the body is the payload's JSON text as given.
    public static let push = APIEndpoint<RawJSON, ControlReplies.PushAccepted>(.post, "/v1/push/{app}")
    /// A silent push to a device token.
    public static let pushToken = APIEndpoint<RawJSON, ControlReplies.PushAccepted>(
        .post, "/v1/push-token/{token}")
    public static let reloadPolicy = APIEndpoint<NoBody, ControlReplies.PolicyReloaded>(.post, "/v1/policy/reload")

    // MARK: Reads

    public static let apps = APIEndpoint<NoBody, [AppInfo]>(.get, "/v1/apps")
    public static let app = APIEndpoint<NoBody, AppInfo>(.get, "/v1/apps/{app}")
    public static let explain = APIEndpoint<NoBody, Explanation>(.get, "/v1/apps/{app}/explain")
    /// The journal; the query is a `JournalQuery`.
    public static let events = APIEndpoint<NoBody, [JournalEntry]>(.get, "/v1/events")
    /// The live journal as server-sent events, one `JournalEntry` each.
    public static let eventStream = APIEndpoint<NoBody, JournalEntry>(.get, "/v1/events/stream")
    public static let health = APIEndpoint<NoBody, Health>(.get, "/v1/health")

    /// The operator verbs that name one app, in the order of DESIGN §1.1.
    public static let appVerbs = [open, forceQuit, reset]
    /// The operator verbs that name no app.
    public static let screenVerbs = [home, overlay, overlayEnd, lock, unlock]

    /// Every route of the table as `METHOD /path/{parameter}`, the form of `docs/openapi.yaml`.
    public static var routes: [String] {
        let appCalls: [any APIRoute] = [
            ready, beginTask, endTask, timeRemaining, completeFetch, completePush, fetchInterval, registerPush,
            acquire, release, reportStatus,
        ]
        let verbs: [any APIRoute] = appVerbs + screenVerbs + [push, pushToken, reloadPolicy]
        let reads: [any APIRoute] = [apps, app, explain, events, eventStream, health]
        return (appCalls + verbs + reads).map(\.route).sorted()
    }
}

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
