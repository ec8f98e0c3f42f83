import Testing
import WardenCore

/// The error thrown when `json` is parsed, or nil if it parses.
private func parseError(_ json: String) -> LifecycleError? {
    do {
        _ = try PushPayload(parsing: json)
        return nil
    } catch {
        return error
    }
}

@Suite struct PushPayloadTests {
    /// `aps.content-available = 1` and a top-level string id are read.
    @Test func contentAvailableAndIdAreRead() throws {
        let payload = try PushPayload(parsing: #" { "aps" : { "content-available" : 1 }, "id" : "n-7" } "#)
        #expect(payload.contentAvailable)
        #expect(payload.id == "n-7")
    }

    /// Only the number 1 under `aps` makes a payload content-available.
    @Test func onlyTheNumberOneIsContentAvailable() throws {
        #expect(try PushPayload(parsing: #"{"aps":{"content-available":1.0}}"#).contentAvailable)
        #expect(try !PushPayload(parsing: #"{"aps":{"content-available":0}}"#).contentAvailable)
        #expect(try !PushPayload(parsing: #"{"aps":{"content-available":"1"}}"#).contentAvailable)
        #expect(try !PushPayload(parsing: #"{"aps":{"alert":"hi"}}"#).contentAvailable)
        #expect(try !PushPayload(parsing: #"{"content-available":1}"#).contentAvailable)
        #expect(try !PushPayload(parsing: #"{"aps":[1]}"#).contentAvailable)
    }

    /// An id that is not a string, or a nested id, is not the notification id.
    @Test func onlyATopLevelStringIsTheId() throws {
        #expect(try PushPayload(parsing: #"{"id":42}"#).id == nil)
        #expect(try PushPayload(parsing: #"{"data":{"id":"inner"}}"#).id == nil)
        #expect(try PushPayload(parsing: #"{}"#).id == nil)
    }

    /// Every escape is decoded, including \u escapes and surrogate pairs.
    @Test func escapesAreDecoded() throws {
        let payload = try PushPayload(
            parsing: #"{"id":"q\"b\\s\/n\nt\tr\rb\bf\fe\u00e9 x\u20AC \ud83d\ude00 é"}"#)
        #expect(payload.id == "q\"b\\s/n\nt\tr\rb\u{08}f\u{0C}e\u{E9} x\u{20AC} \u{1F600} é")
    }

    /// Values of every kind are accepted inside a payload.
    @Test func everyKindOfValueIsAccepted() throws {
        let json = #"{"a":[true,false,null,-0,0.5,12e3,1E-2,-7.25e+1,"s",{},[]],"id":"x"}"#
        #expect(try PushPayload(parsing: json).id == "x")
    }

    /// A payload that is valid JSON but not an object is refused, naming what it is.
    @Test func aPayloadMustBeAnObject() {
        #expect(parseError("[1, 2]")?.message == "The push payload must be a JSON object, but it is an array.")
        #expect(parseError(#""text""#)?.message == "The push payload must be a JSON object, but it is a string.")
        #expect(parseError("  ")?.message == "The push payload is empty; it must be a JSON object.")
        #expect(parseError("null")?.code == .invalid)
    }

    /// Malformed JSON is refused with a sentence naming the problem and its byte offset.
    @Test func malformedJSONNamesTheByteOffset() {
        let cases: [(String, String)] = [
            (#"{"a":1,}"#, "expected a string key in double quotes but found '}' (byte 7)"),
            (#"{} x"#, "unexpected 'x' after the end of the JSON value (byte 3)"),
            (#"{"a" 1}"#, "expected ':' after the key \"a\" but found '1' (byte 5)"),
            (#"{"a":[1 2]}"#, "expected ',' or ']' in an array but found '2' (byte 8)"),
            (#"{"a":01}"#, "a number may not start with a leading zero (byte 6)"),
            (#"{"a":1.}"#, "a number's decimal point must be followed by a digit but is followed by '}' (byte 7)"),
            (#"{"a":tru}"#, "unexpected 't' where a value was expected (byte 5)"),
            (#"{"a":'x'}"#, "unexpected ''' where a value was expected (byte 5)"),
            (#"{"id":"\udc00"}"#, "\\uDC00 is a lone low surrogate (byte 7)"),
            (#"{"id":"\ud83dx"}"#, "\\uD83D is a high surrogate not followed by a \\u low surrogate (byte 7)"),
            (#"{"id":"\u12G4"}"#, "a \\u escape must be followed by four hexadecimal digits (byte 7)"),
            (#"{"id":"\q"}"#, "\"\\q\" is not a valid escape sequence (byte 7)"),
            ("{\"id\":\"a\nb\"}", "a control character (byte 0xA) must be escaped inside a string (byte 8)"),
            (#"{"a":1,"a":2}"#, "the key \"a\" appears twice in one object (byte 7)"),
            (#"{"a":"#, "the payload ends where a value was expected (byte 5)"),
            (#"{"a":1"#, "expected ',' or '}' in an object but found the end of the payload (byte 6)"),
        ]
        for (json, problem) in cases {
            let error = parseError(json)
            #expect(error?.code == .invalid, "\(json)")
            #expect(error?.message == "The push payload is not valid JSON: \(problem).", "\(json)")
        }
        #expect(
            parseError(#"{"id":"abc"#)?.message
                == "The push payload is not valid JSON: the string that starts at byte 6 never ends.")
    }

    /// A key repeated in a large object is refused as in a small one, wherever it repeats; the
    /// same keys in different objects are not repeats.
    @Test func aRepeatedKeyIsFoundInALargeObject() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" }
        for repeated in [0, 15, 16, 17, 39] {
            let json = "{" + members.joined(separator: ",") + ",\"k\(repeated)\":1,\"aps\":{}}"
            let byte = json.utf8.count - "\"k\(repeated)\":1,\"aps\":{}}".utf8.count
            #expect(
                parseError(json)?.message
                    == "The push payload is not valid JSON: the key \"k\(repeated)\" appears twice in one object "
                    + "(byte \(byte)).")
        }
        let nested =
            "{" + members.joined(separator: ",") + ",\"aps\":{" + members.joined(separator: ",")
            + ",\"content-available\":1},\"id\":\"n\"}"
        let payload = try PushPayload(parsing: nested)
        #expect(payload.contentAvailable && payload.id == "n")
    }

    /// Containers may nest 64 levels deep, not 65.
    @Test func nestingIsLimited() {
        let deepest = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(parseError("{\"a\":\(deepest)}") == nil)
        let tooDeep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(
            parseError("{\"a\":\(tooDeep)}")?.message
                == "The push payload is not valid JSON: arrays and objects nest more than 64 levels deep (byte 68).")
        #expect(parseError(String(repeating: "[", count: 100_000)) != nil)
    }
}
