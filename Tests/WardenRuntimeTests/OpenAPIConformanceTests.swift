import Foundation
import Logging
import NIOHTTP1
import Testing
import WardenAPI
import WardenRuntime
import WardenTesting

@Suite("docs/openapi.yaml against the running control server")
struct OpenAPIConformanceTests {
    static let documentPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml").path

    static func document() throws -> [String: Any] {
        var reader = OpenAPIYAMLReader(try String(contentsOfFile: documentPath, encoding: .utf8))
        return try reader.read()
    }

    /// Every documented operation, as `METHOD /path`, with its description in the document.
    static func operations(_ document: [String: Any]) throws -> [(route: String, operation: [String: Any])] {
        let paths = try #require(document["paths"] as? [String: Any])
        var result: [(String, [String: Any])] = []
        for (path, item) in paths {
            let methods = try #require(item as? [String: Any])
            for (method, operation) in methods {
                result.append(("\(method.uppercased()) \(path)", try #require(operation as? [String: Any])))
            }
        }
        return result.sorted { $0.0 < $1.0 }
    }

    /// The reader refuses the scalars YAML refuses (a plain one with ": " or " #", a quote left
    /// unescaped in a quoted one), so that a document the API fuzzer could not load fails here.
    @Test func theDocumentReaderRefusesWhatYAMLRefuses() throws {
        for text in ["a: b: c", "a: 'it's'", "a: x #y", "a:\n- \"say \"hi\"\""] {
            var reader = OpenAPIYAMLReader(text)
            #expect(throws: (any Error).self, "\(text)") { try reader.read() }
        }
        var reader = OpenAPIYAMLReader("a: 'it''s'\nb: \"say \\\"hi\\\"\"\nc: plain, with a colon:in it")
        let read = try reader.read()
        #expect(read["a"] as? String == "it's")
        #expect(read["b"] as? String == "say \"hi\"")
        #expect(read["c"] as? String == "plain, with a colon:in it")
    }

    /// The document lists exactly the routes the server answers.
    @Test func documentListsEveryRouteTheServerAnswers() throws {
        let server = ControlServer(control: ControlServerDouble(apps: []), socketPath: "/unused", adminGroup: nil)
        let documented = try Self.operations(try Self.document()).map(\.route)
        #expect(Set(documented) == Set(server.routes))
        #expect(documented.count == server.routes.count)
    }

    /// Every documented operation, called for real, answers a documented status with a body that
    /// has the documented required fields and enumerated values.
    @Test func realResponsesMatchTheDocument() async throws {
        let document = try Self.document()
        let operations = try Self.operations(document)
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (_, tokenBody) = try await harness.request(.POST, "/v1/apps/mail/register-push")
            let token = try #require(try ControlServerHarness.object(tokenBody)["token"] as? String)
            var successes: [String] = []
            for (route, operation) in operations {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let isAppCall = (operation["tags"] as? [Any])?.first as? String == "app"
                let path = parts[1]
                    .replacingOccurrences(of: "{app}", with: isAppCall || parts[0] == "GET" ? "mail" : "maps")
                    .replacingOccurrences(of: "{token}", with: token)
                let example = try Self.requestExample(operation)
                let responses = try #require(operation["responses"] as? [String: Any], "\(route) lists no responses")
                if path == "/v1/events/stream" {
                    try await Self.checkStream(harness, responses: responses, document: document)
                    successes.append(route)
                    continue
                }
                if path == "/metrics" {
                    // The one answer in the Prometheus text format rather than JSON.
                    let (status, body) = try await harness.request(.GET, path)
                    #expect(status == 200, "GET /metrics answered \(status): \(body)")
                    #expect(body.contains("# TYPE appwarden_apps gauge"))
                    successes.append(route)
                    continue
                }
                if path.hasPrefix("/v1/open/") {
                    // Open is refused while the screen is locked, and the lock route may have come first.
                    _ = try await harness.request(.POST, "/v1/unlock")
                }
                let (status, body) = try await harness.request(HTTPMethod(rawValue: parts[0]), path, body: example)
                let response = try #require(
                    responses["\(status)"] as? [String: Any],
                    "\(route) answered \(status), which is not documented: \(body)")
                let schema = try Self.jsonSchema(of: response, document: document)
                let value = try JSONSerialization.jsonObject(with: Data(body.utf8), options: .fragmentsAllowed)
                try Self.check(value, against: schema, document: document, at: route)
                if status == 200 { successes.append(route) }
            }
            let refused = operations.map(\.route).filter { !successes.contains($0) }
            // App calls that need a fetch, push or accessory window, a declared resource, a reported
            // status or an open task or activity are refused for the plain test app; every other
            // route succeeds.
            #expect(refused.count <= 8, "These did not answer 200: \(refused)")
            #expect(refused.allSatisfy { $0.hasPrefix("POST /v1/apps/{app}/") }, "Refused: \(refused)")
        }
    }

    /// Every key an app encodes, with its windows, activities and tasks, is documented in its
    /// schema, with the documented type.
    @Test func theAppSchemasDocumentEveryKeyAnAppEncodes() throws {
        let document = try Self.document()
        let app = AppInfo(
            name: "till", state: .init(rawValue: "background"), status: .init(rawValue: "background"), pids: [3],
            footprintBytes: 5, swappedBytes: 1, reclaimableBytes: 4, band: .init(rawValue: "background-window"),
            timeRemainingMillis: 1, nextWakeMillis: 2, openTasks: [TaskInfo(id: 1, name: "upload")],
            activities: [ActivityInfo(id: 1, mode: "audio")],
            windows: [WindowInfo(kind: "accessory", endMillis: 3, action: "add", device: "usb 1234:5678")],
            heldResources: ["camera"], cpuClass: "background", cpuTimeMillis: 4, backgroundCPUPercent: 5,
            coldLaunches: 1)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(app))
        let encoded = try #require(json as? [String: Any])
        let parts: [(schema: String, object: [String: Any]?)] = [
            ("AppInfo", encoded), ("WindowInfo", (encoded["windows"] as? [[String: Any]])?.first),
            ("ActivityInfo", (encoded["activities"] as? [[String: Any]])?.first),
            ("TaskInfo", (encoded["openTasks"] as? [[String: Any]])?.first),
        ]
        for (name, object) in parts {
            let object = try #require(object, "The app encodes no \(name).")
            let schema = try Self.resolve(["$ref": "#/components/schemas/\(name)"], document: document)
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in object.keys.sorted() {
                #expect(properties[key] != nil, "The schema \(name) does not document \"\(key)\".")
            }
            try Self.check(object, against: schema, document: document, at: name)
        }
    }

    private static func checkStream(
        _ harness: ControlServerHarness, responses: [String: Any], document: [String: Any]
    ) async throws {
        let response = try #require(responses["200"] as? [String: Any])
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["text/event-stream"] != nil)
    }

    private static func requestExample(_ operation: [String: Any]) throws -> String? {
        guard let body = operation["requestBody"] as? [String: Any],
            let content = body["content"] as? [String: Any],
            let json = content["application/json"] as? [String: Any], let example = json["example"]
        else { return nil }
        return String(decoding: try JSONSerialization.data(withJSONObject: example), as: UTF8.self)
    }

    private static func resolve(_ node: [String: Any], document: [String: Any]) throws -> [String: Any] {
        guard let reference = node["$ref"] as? String else { return node }
        var current: Any = document
        for part in reference.dropFirst(2).split(separator: "/") {
            current = try #require(
                (current as? [String: Any])?[String(part)], "The reference \(reference) is dangling.")
        }
        return try resolve(try #require(current as? [String: Any]), document: document)
    }

    private static func jsonSchema(of response: [String: Any], document: [String: Any]) throws -> [String: Any] {
        let resolved = try resolve(response, document: document)
        let content = try #require(resolved["content"] as? [String: Any])
        let json = try #require(content["application/json"] as? [String: Any])
        return try resolve(try #require(json["schema"] as? [String: Any]), document: document)
    }

    private static func check(_ value: Any, against schema: [String: Any], document: [String: Any], at place: String)
        throws
    {
        let schema = try resolve(schema, document: document)
        switch schema["type"] as? String {
        case "object":
            let object = try #require(value as? [String: Any], "\(place): expected an object, got \(value)")
            for field in schema["required"] as? [Any] ?? [] {
                let name = try #require(field as? String)
                #expect(object[name] != nil, "\(place): the required field \"\(name)\" is missing")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (name, property) in properties {
                guard let fieldValue = object[name] else { continue }
                try check(
                    fieldValue, against: try #require(property as? [String: Any]), document: document,
                    at: "\(place).\(name)")
            }
        case "array":
            let array = try #require(value as? [Any], "\(place): expected an array, got \(value)")
            let items = try #require(schema["items"] as? [String: Any])
            for (index, item) in array.enumerated() {
                try check(item, against: items, document: document, at: "\(place)[\(index)]")
            }
        case "string":
            let string = try #require(value as? String, "\(place): expected a string, got \(value)")
            if let allowed = schema["enum"] as? [Any] {
                #expect(
                    allowed.contains { $0 as? String == string }, "\(place): \"\(string)\" is not one of \(allowed)")
            }
        case "integer":
            let number = try #require(value as? NSNumber, "\(place): expected an integer, got \(value)")
            #expect(number.doubleValue.rounded() == number.doubleValue, "\(place): expected an integer, got \(number)")
        case "boolean":
            #expect(value is Bool, "\(place): expected a boolean")
        default:
            break
        }
    }
}
