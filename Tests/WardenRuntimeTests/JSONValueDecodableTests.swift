import Foundation
import Testing
import WardenAPI
import WardenClient
import WardenCore
import WardenJSON

@testable import WardenRuntime

/// The app list read through `JSONReader` (`JSONValueDecodable`, what the client uses) is what
/// `JSONDecoder` reads from the same text, and a document that is not an app list is refused
/// with a sentence that says where.
struct JSONValueDecodableTests {
    static let apps = [
        AppInfo(
            name: "mail", state: .init(rawValue: "background"), status: .init(rawValue: "background"),
            pids: [412, 9], footprintBytes: 96 << 20, swappedBytes: 12 << 20,
            band: .init(rawValue: "idle-background"), timeRemainingMillis: -5, nextWakeMillis: 1_800_000_000_000,
            openTasks: [TaskInfo(id: 1, name: "sync \"inbox\"\n"), TaskInfo(id: 2, name: "ünïcødé 🚀")],
            heldResources: ["camera", "a/b\\c"], forceQuit: true, hasPreservedState: true, cpuClass: "background",
            cpuTimeMillis: 61_250, backgroundCPUPercent: 95),
        AppInfo(name: "maps", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown")),
        AppInfo(
            name: "from-a-newer-daemon", state: .init(rawValue: "hibernating"), status: .init(rawValue: "dozing"),
            pids: [Int32.max], footprintBytes: Int64.max, band: .init(rawValue: "some-new-band")),
    ]

    /// Every field, optionals present and absent, escapes, non-ASCII names and values this
    /// version does not know, as the daemon writes them and as Foundation writes them.
    @Test func theAppListReadsAsJSONDecoderReadsIt() throws {
        for text in [try SortedJSONEncoder.encode(Self.apps), Array(try JSONEncoder().encode(Self.apps))] {
            let expected = try JSONDecoder().decode([AppInfo].self, from: Data(text))
            #expect(expected == Self.apps)
            #expect(try [AppInfo].decode(json: text, subject: "The answer") == expected)
        }
    }

    /// A member `decodeIfPresent` reads may be `null` or absent; the others may not.
    @Test func nullAndAbsentOptionalsReadAsJSONDecoderReadsThem() throws {
        let text =
            Array(
                #"[{"name":"a","state":"suspended","status":"background","pids":[],"footprintBytes":1,"band":null,"#
                    .utf8)
            + Array(
                #""nextWakeMillis":null,"openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":false}]"#
                    .utf8)
        let expected = try JSONDecoder().decode([AppInfo].self, from: Data(text))
        #expect(try [AppInfo].decode(json: text, subject: "The answer") == expected)
        #expect(expected.first?.swappedBytes == 0)
    }

    /// Members in another order, members this version does not know (of every kind, nested) and
    /// whitespace everywhere read as `JSONDecoder` reads them.
    @Test func membersInAnyOrderAndUnknownMembersReadAsJSONDecoderReadsThem() throws {
        let text = Array(
            """
             [ { "hasPreservedState" : false , "future" : { "a" : [ 1 , -2.5e3 , null , true , "x\\u00e9" ] } ,
                 "openTasks" : [ { "name" : "t" , "extra" : [ ] , "id" : 3 } ] , "heldResources" : [ ] ,
                 "forceQuit" : true , "footprintBytes" : 0 , "pids" : [ ] , "status" : "background" ,
                 "nextWakeMillis" : 12 , "state" : "background" , "name" : "z" , "band" : null } ]
            """.utf8)
        let expected = try JSONDecoder().decode([AppInfo].self, from: Data(text))
        #expect(expected.first?.openTasks == [TaskInfo(id: 3, name: "t")])
        #expect(try [AppInfo].decode(json: text, subject: "The answer") == expected)
        #expect(try AppInfo.decode(json: Array(text.dropFirst(2).dropLast(2)), subject: "The answer") == expected[0])
    }

    /// A key written with escapes is its text: it matches the member it names, and it repeats a
    /// key written plainly.
    @Test func aKeyWithEscapesIsItsText() throws {
        let good = String(decoding: try SortedJSONEncoder.encode([Self.apps[0]]), as: UTF8.self)
        let escaped = good.replacingOccurrences(of: #""name":"mail""#, with: #""n\u0061me":"mail""#)
            .replacingOccurrences(of: #""hasPreservedState""#, with: #""has\u0050reservedState""#)
        #expect(escaped != good)
        let expected = try JSONDecoder().decode([AppInfo].self, from: Data(escaped.utf8))
        #expect(expected == [Self.apps[0]])
        #expect(try [AppInfo].decode(json: Array(escaped.utf8), subject: "The answer") == expected)
        let twice = good.replacingOccurrences(of: #""forceQuit":true"#, with: #""n\u0061me":"again""#)
        #expect(twice != good)
        do {
            _ = try [AppInfo].decode(json: Array(twice.utf8), subject: "The answer")
            Issue.record("a repeated key was read")
        } catch {
            #expect(error.message.contains(#"the key "name" appears twice"#), "\(error.message)")
        }
    }

    /// Keys are compared as Swift compares their text: two spellings of the same text (composed
    /// and decomposed), or two byte sequences that are not UTF-8, are one key repeated.
    @Test func keysThatAreTheSameTextAreRepeated() throws {
        let composed = Array(#"[{"caf\#u{E9}":1,"#.utf8) + Array(#""cafe\#u{301}":2}]"#.utf8)
        let invalid = Array(#"[{"a"#.utf8) + [0xFF] + Array(#"":1,"a"#.utf8) + [0xFE] + Array(#"":2}]"#.utf8)
        let ascii = Array(#"[{"a":1,"b":2}]"#.utf8)
        for text in [composed, invalid] {
            do {
                _ = try [AppInfo].decode(json: text, subject: "The answer")
                Issue.record("a repeated key was read")
            } catch {
                #expect(error.message.contains("appears twice"), "\(error.message)")
            }
            var tree = JSONReader(bytes: text, subject: "The answer", noun: "the answer")
            #expect(throws: JSONError.self) { _ = try tree.readDocument() }
        }
        var tree = JSONReader(bytes: ascii, subject: "The answer", noun: "the answer")
        #expect(throws: Never.self) { _ = try tree.readDocument() }
    }

    /// Integers are read whole at every length and sign, up to the type's limits and no further:
    /// up to 18 digits they are added up, beyond that and below zero the type reads the text.
    @Test func integersReadToTheTypesLimits() throws {
        func read<Integer: FixedWidthInteger>(_ text: String, as _: Integer.Type) throws(JSONReader.Failure)
            -> [Integer]
        {
            var reader = JSONReader(bytes: Array(text.utf8), subject: "The answer", noun: "the answer")
            try reader.beginDocument()
            let values = try reader.nextArray { (reader: inout JSONReader) throws(JSONReader.Failure) in
                try reader.nextInteger(Integer.self)
            }
            try reader.endDocument()
            return values
        }
        let int64 = [0, -5, 999_999_999_999_999_999, 1_000_000_000_000_000_000, Int64.max, Int64.min]
        #expect(try read("[" + int64.map(String.init).joined(separator: ",") + "]", as: Int64.self) == int64)
        #expect(try read("[2147483647, -2147483648, 7]", as: Int32.self) == [Int32.max, Int32.min, 7])
        let outside = ["2147483648", "-2147483649", "99999999999999999999", "1e3", "5.0", "-0.5"]
        for number in outside {
            #expect {
                _ = try read("[\(number)]", as: Int32.self)
            } throws: { error in
                guard case .mismatch(let problem) = error as? JSONReader.Failure else { return false }
                return problem == "element 0: a number found where an integer that fits Int32 was expected"
            }
        }
        #expect {
            _ = try read("[\"7\"]", as: Int64.self)
        } throws: { error in
            guard case .mismatch(let problem) = error as? JSONReader.Failure else { return false }
            return problem == "element 0: a string found where an integer that fits Int64 was expected"
        }
    }

    /// A key repeated in one object, an empty document, something after the list and a list
    /// nested past the reader's depth are refused as not JSON, saying where.
    @Test func textThatIsNotJSONIsRefusedAsTheTreeReaderRefusesIt() throws {
        let good = String(decoding: try SortedJSONEncoder.encode([Self.apps[1]]), as: UTF8.self)
        let cases: [(String, String)] = [
            (
                good.replacingOccurrences(of: #""forceQuit":false"#, with: #""name":"again""#),
                #"the key "name" appears twice"#
            ),
            ("  ", "The answer is empty; it must be JSON."),
            (good + " []", "unexpected '[' after the end of the JSON value"),
            (String(repeating: "[", count: 600) + String(repeating: "]", count: 600), "nest more than 512 levels"),
            (#"[{"name":tru}]"#, "unexpected 't' where a value was expected"),
            // A member that does not fit, then text that is not JSON: named as not JSON.
            (#"[{"name":5,"state":tru}]"#, "unexpected 't' where a value was expected"),
            (#"[{"name":"a","pids":[1,]}]"#, "unexpected ']' where a value was expected"),
        ]
        for (text, expected) in cases {
            do {
                _ = try [AppInfo].decode(json: Array(text.utf8), subject: "The answer")
                Issue.record("\(text.prefix(60)) was read")
            } catch {
                #expect(error.message.contains(expected), "\(text.prefix(60)): \(error.message)")
                #expect(!error.message.contains("expected JSON"), "\(error.message)")
                var tree = JSONReader(
                    bytes: Array(text.utf8), subject: "The answer", noun: "the answer", maximumDepth: 512)
                #expect(throws: JSONError.self) { _ = try tree.readDocument() }
            }
        }
    }

    /// A missing member, a wrong type, a number out of range and broken JSON are refused, each
    /// with the element and the member or the byte.
    @Test func aDocumentThatIsNotAnAppListIsRefusedWithWhere() throws {
        let good = String(decoding: try SortedJSONEncoder.encode([Self.apps[1]]), as: UTF8.self)
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: #""name":"maps","#, with: ""), #"element 0: the member "name" is missing"#),
            (
                good.replacingOccurrences(of: #""forceQuit":false"#, with: #""forceQuit":"no""#),
                #"element 0: the member "forceQuit": a string found where true or false was expected"#
            ),
            (
                good.replacingOccurrences(of: #""pids":[]"#, with: #""pids":[7,4294967296]"#),
                #"element 0: the member "pids": element 1: a number found where an integer that fits Int32 was expected"#
            ),
            (
                good.replacingOccurrences(of: #""footprintBytes":0"#, with: #""footprintBytes":5.0"#),
                #"the member "footprintBytes": a number found where an integer that fits Int64 was expected"#
            ),
            (good.replacingOccurrences(of: #""name":"maps""#, with: #""name":null"#), #"the member "name" is missing"#),
            (good.replacingOccurrences(of: #""pids":[]"#, with: #""pids":null"#), #"the member "pids" is missing"#),
            (#"{"apps":[]}"#, "an object found where an array was expected"),
            (
                String(good.dropLast()),
                "The answer is not valid JSON: expected ',' or ']' in an array but found the end of the answer"
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: LifecycleError.self) { try [AppInfo].decode(json: Array(text.utf8), subject: "The answer") }
            do {
                _ = try [AppInfo].decode(json: Array(text.utf8), subject: "The answer")
            } catch {
                #expect(error.message.contains(expected), "\(text): \(error.message)")
                #expect(error.message.hasPrefix("The answer"), "\(error.message)")
            }
        }
    }

    /// The client reads the app list and an app this way, awaited or on its thread: an answer
    /// with a member missing is refused with the element and the member, which `JSONDecoder`'s
    /// error does not put this way.
    @Test func theClientReadsTheAppListThisWay() async throws {
        let server = try ClientTestServer { request in
            [ClientTestServer.response(200, request.path == "/v1/apps" ? #"[{"name":"a"}]"# : #"{"name":"a"}"#)]
        }
        defer { server.stop() }
        let connection = WardenConnection(socketPath: server.socketPath, retry: .once)
        let list = #"The answer to GET /v1/apps is not the expected JSON: element 0: the member "state" is missing"#
        let awaited = await #expect(throws: WardenClientError.self) { _ = try await connection.call(ControlAPI.apps) }
        let blocking = #expect(throws: WardenClientError.self) {
            _ = try connection.callBlockingKeepingAnswer(ControlAPI.apps)
        }
        let one = #expect(throws: WardenClientError.self) { _ = try connection.callBlocking(ControlAPI.app, ["a"]) }
        #expect(awaited?.code == .protocolViolation)
        #expect(awaited?.message == list)
        #expect(blocking?.message == list)
        #expect(
            one?.message == #"The answer to GET /v1/apps/a is not the expected JSON: the member "state" is missing"#)
    }
}
