import Foundation
import NIOHTTP1
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

/// Inputs that fuzzing the control API from docs/openapi.yaml (scripts/fuzz-api.sh) found, kept
/// as regressions.
@Suite("Control API inputs found by fuzzing")
struct ControlServerFuzzFindingsTests {
    /// The integer query parameters of the event routes, which the server reads as 64-bit integers.
    static let integerParameters = ["since", "sinceTime", "limit"]

    /// A query integer beyond 64 bits (the fuzzer's `sinceTime=32589158477190044730`) is refused
    /// with 400 naming the parameter, and the largest 64-bit value is accepted.
    @Test func queryIntegersBeyond64BitsAreRefusedNamingTheParameter() async throws {
        try await ControlServerHarness.run { harness in
            for name in Self.integerParameters {
                let (status, body) = try await harness.request(.GET, "/v1/events?\(name)=32589158477190044730")
                #expect(status == 400, "\(name): \(body)")
                let error = try ControlServerHarness.error(body)
                #expect(error.error == "invalid")
                #expect(error.message.contains("\"\(name)\""), "\(error.message)")
                let (largest, largestBody) = try await harness.request(
                    .GET, "/v1/events?\(name)=\(Int64.max)")
                #expect(largest == 200, "\(name)=\(Int64.max): \(largestBody)")
            }
        }
    }

    /// The document bounds every integer query parameter of the event routes to 64 bits, so
    /// that a value the document allows is one the server accepts.
    @Test func documentBoundsEveryIntegerQueryParameterTo64Bits() throws {
        let document = try OpenAPIConformanceTests.document()
        let paths = try #require(document["paths"] as? [String: Any])
        for route in ["/v1/events", "/v1/events/stream"] {
            let item = try #require(paths[route] as? [String: Any])
            let get = try #require(item["get"] as? [String: Any])
            let parameters = try #require(get["parameters"] as? [Any]).compactMap { $0 as? [String: Any] }
            for name in Self.integerParameters {
                let parameter = try #require(parameters.first { $0["name"] as? String == name }, "\(route) \(name)")
                let schema = try #require(parameter["schema"] as? [String: Any])
                #expect(schema["type"] as? String == "integer")
                #expect(schema["maximum"] as? String == "\(Int64.max)", "\(route) \(name) has no 64-bit maximum")
            }
        }
    }

    /// A task id is a 64-bit integer in the document too: the largest one is read (and is
    /// simply not found) rather than refused as malformed.
    @Test func largestTaskIDIsReadAndNotFound() async throws {
        let document = try OpenAPIConformanceTests.document()
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let endTask = try #require(schemas["EndTask"] as? [String: Any])
        let properties = try #require(endTask["properties"] as? [String: Any])
        let id = try #require(properties["id"] as? [String: Any])
        #expect(id["maximum"] as? String == "\(Int64.max)")
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (status, body) = try await harness.request(
                .POST, "/v1/apps/mail/end-task", body: #"{"id":\#(Int64.max)}"#)
            #expect(status == 404, "\(body)")
        }
    }

    /// An empty fetch interval (schemathesis' input, valid for the document's plain string) is
    /// refused with 400 and a sentence naming the forms it may take, and changes nothing.
    @Test func emptyFetchIntervalIsRefusedNamingTheForms() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (status, body) = try await harness.request(
                .POST, "/v1/apps/mail/fetch-interval", body: #"{"interval": ""}"#)
            #expect(status == 400, "\(body)")
            let error = try ControlServerHarness.error(body)
            #expect(error.error == "invalid")
            #expect(
                error.message
                    == #"The fetch interval must be "minimum", "never" or a duration such as "15m", not ""."#)
            #expect(await harness.double.accepted == [.open(app: "mail")])
        }
    }

    /// A push whose body is not a JSON object (schemathesis' input) is refused with 400 naming
    /// the JSON problem before the device token is looked up: a stale token, an unknown token
    /// and an unknown app all give the same answer, and the core is not asked at all.
    @Test func malformedPushBodyIsRefusedBeforeTheTokenIsLookedUp() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (_, tokenBody) = try await harness.request(.POST, "/v1/apps/mail/register-push")
            let stale = try JSONDecoder().decode(ControlReplies.DeviceToken.self, from: Data(tokenBody.utf8)).token
            #expect(try await harness.request(.POST, "/v1/reset/mail").status == 200)
            let acceptedBefore = await harness.double.accepted
            for path in ["/v1/push-token/\(stale)", "/v1/push-token/no-such-token", "/v1/push/nobody"] {
                for body in ["{not json", "[1]", #"{"aps":{"content-available":1}} x"#] {
                    let (status, reply) = try await harness.request(.POST, path, body: body)
                    #expect(status == 400, "\(path) \(body): \(reply)")
                    let error = try ControlServerHarness.error(reply)
                    #expect(error.error == "invalid")
                    #expect(error.message.hasPrefix("The push payload "), "\(error.message)")
                }
            }
            #expect(await harness.double.accepted == acceptedBefore)
            let (gone, goneBody) = try await harness.request(
                .POST, "/v1/push-token/\(stale)", body: #"{"aps":{"content-available":1}}"#)
            #expect(gone == 410, "\(goneBody)")
        }
    }
}
