/// A strict, recursive-descent JSON reader over UTF-8 bytes (RFC 8259), without Foundation: one
/// value, nothing after it but whitespace; strings with the escapes `\" \\ \/ \b \f \n \r \t
/// \uXXXX` (surrogate pairs combined, a lone surrogate refused) and no raw control characters;
/// numbers in JSON's grammar; `true`, `false`, `null`. Objects may not repeat a key, and
/// containers nest at most `maximumDepth` deep. Every error is a `JSONError`, a sentence
/// naming what was read (`subject`) and the byte offset (counted from 0) where it was found.
///
/// Push payloads are read with it, and the client reads bulk answers (the app list) with it.
public struct JSONReader {
    /// A parsed JSON value. Numbers keep their text.
    public enum Value: Sendable, Equatable {
        case object(Members)
        case array([Value])
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        /// "an array", "a string", … for error messages.
        public var kindDescription: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            }
        }
    }

    /// An object's members in the order they were read, each key once. A member is found by
    /// comparing keys in turn, which for the objects of an answer or a payload (a dozen members)
    /// costs less than hashing them into a dictionary.
    public struct Members: Sendable, Equatable, ExpressibleByDictionaryLiteral {
        public private(set) var pairs: [(key: String, value: Value)] = []

        public init(dictionaryLiteral elements: (String, Value)...) {
            for (key, value) in elements where self[key] == nil { pairs.append((key, value)) }
        }

        /// The value of the member `key`, if there is one.
        public subscript(key: String) -> Value? {
            for pair in pairs where pair.key == key { return pair.value }
            return nil
        }

        public var count: Int { pairs.count }

        mutating func append(key: String, value: Value) { pairs.append((key, value)) }

        /// The same members, in any order.
        public static func == (lhs: Members, rhs: Members) -> Bool {
            lhs.count == rhs.count && lhs.pairs.allSatisfy { rhs[$0.key] == $0.value }
        }
    }

    let bytes: [UInt8]
    var offset = 0
    var depth = 0
    /// The keys of the objects being read, the outer ones' first (`KeyLog`): one array for the
    /// whole document rather than one per object.
    var keyStack: [ArraySlice<UInt8>] = []
    /// What is read, as error messages begin: "The push payload".
    let subject: String
    /// What is read, as error messages name it inside a sentence: "the payload".
    let noun: String
    /// How deep arrays and objects may nest.
    let maximumDepth: Int

    public init(bytes: [UInt8], subject: String, noun: String, maximumDepth: Int = 64) {
        self.bytes = bytes
        self.subject = subject
        self.noun = noun
        self.maximumDepth = maximumDepth
    }

    /// Reads one value and makes sure only whitespace follows it.
    public mutating func readDocument() throws(JSONError) -> Value {
        try checkStart()
        let value = try readValue()
        try checkEnd()
        return value
    }

    /// Refuses a document that is empty or only whitespace.
    mutating func checkStart() throws(JSONError) {
        skipWhitespace()
        guard offset < bytes.count else {
            throw JSONError("\(subject) is empty; it must be JSON.")
        }
    }

    /// Refuses anything but whitespace after the document's value.
    mutating func checkEnd() throws(JSONError) {
        skipWhitespace()
        if offset < bytes.count {
            throw error("unexpected \(describe(bytes[offset])) after the end of the JSON value")
        }
    }

    mutating func readValue() throws(JSONError) -> Value {
        skipWhitespace()
        guard offset < bytes.count else { throw error("\(noun) ends where a value was expected") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try readNumber())
        default:
            throw error("unexpected \(describe(bytes[offset])) where a value was expected")
        }
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > maximumDepth {
            throw error("arrays and objects nest more than \(maximumDepth) levels deep")
        }
    }

    private mutating func readObject() throws(JSONError) -> Value {
        var members = Members()
        var keys = KeyLog(base: keyStack.count)
        defer { keys.forget(from: &keyStack) }
        guard try open() else { return .object(members) }
        repeat {
            let key = try readKey(into: &keys)
            members.append(key: key.text, value: try readValue())
        } while try next(in: .object)
        return .object(members)
    }

    private mutating func readArray() throws(JSONError) -> Value {
        var elements: [Value] = []
        guard try open() else { return .array(elements) }
        repeat {
            elements.append(try readValue())
        } while try next(in: .array)
        return .array(elements)
    }

    /// The two containers, by the byte that closes each.
    enum Container: UInt8 {
        case object = 0x7D  // }
        case array = 0x5D  // ]
    }

    /// Steps into the array or object at the current offset: false when it is empty (and then
    /// already left), true when an element or a member follows.
    mutating func open() throws(JSONError) -> Bool {
        try enter()
        let closer: UInt8 = bytes[offset] == UInt8(ascii: "{") ? Container.object.rawValue : Container.array.rawValue
        offset += 1
        skipWhitespace()
        guard peek() == closer else { return true }
        offset += 1
        depth -= 1
        return false
    }

    /// After an element or a member: true when a comma says another follows, false when the
    /// container closes (and is left).
    mutating func next(in container: Container) throws(JSONError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case container.rawValue:
            offset += 1
            depth -= 1
            return false
        default:
            let kind = container == .object ? "',' or '}' in an object" : "',' or ']' in an array"
            throw error("expected \(kind) but found \(describeCurrent())")
        }
    }

    /// A member's key as read: the UTF-8 bytes of its text, escapes resolved. The pulling reads
    /// match it against the keys they know (`case "name":`) without making a `String` of it.
    public struct Key: CustomStringConvertible {
        @usableFromInline let bytes: ArraySlice<UInt8>

        /// The key's text.
        public var text: String { String(decoding: bytes, as: UTF8.self) }

        public var description: String { text }

        /// Whether the key is `pattern`, so that a `switch` over a key matches string literals.
        @inlinable public static func ~= (pattern: StaticString, key: Key) -> Bool {
            pattern.withUTF8Buffer { sameBytes(key.bytes, $0) }
        }
    }

    /// Whether `bytes` holds exactly `other`, compared through their buffers (the generic
    /// `elementsEqual` iterates far more slowly).
    @inlinable static func sameBytes(_ bytes: ArraySlice<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == other.count else { return false }
        return bytes.withUnsafeBufferPointer { bytes in
            for index in 0..<bytes.count where bytes[index] != other[index] { return false }
            return true
        }
    }

    /// Reads a member's key and the colon after it, refusing a key that `keys` already holds.
    mutating func readKey(into keys: inout KeyLog) throws(JSONError) -> Key {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else {
            throw error("expected a string key in double quotes but found \(describeCurrent())")
        }
        let keyOffset = offset
        let key: Key
        if let end = plainStringEnd() {
            // The common key, with no escape: its bytes are its text.
            key = Key(bytes: bytes[(offset + 1)..<end])
            offset = end + 1
        } else {
            key = Key(bytes: ArraySlice(try readString().utf8))
        }
        if !keys.insert(key.bytes, into: &keyStack) {
            throw JSONError(
                "\(subject) is not valid JSON: the key \"\(key.text)\" appears twice in one object (byte \(keyOffset))."
            )
        }
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else {
            throw error("expected ':' after the key \"\(key.text)\" but found \(describeCurrent())")
        }
        offset += 1
        return key
    }

    /// The keys of one object read so far, as their bytes: those from `base` on in the reader's
    /// `keyStack`. Two keys are the same as Swift compares their text (canonically equivalent
    /// text, bytes that are not UTF-8 read as U+FFFD); while every key is ASCII, that is the
    /// same bytes. Past a few keys, their text is also kept in a set, so that a large object is
    /// checked for a repeated key without comparing every pair of keys.
    struct KeyLog {
        let base: Int
        private var many: Set<String>?
        /// Whether a key of the object has a byte outside ASCII.
        private var beyondASCII = false

        init(base: Int) {
            self.base = base
        }

        /// Adds `key` to `stack`; false when the object already had it.
        mutating func insert(_ key: ArraySlice<UInt8>, into stack: inout [ArraySlice<UInt8>]) -> Bool {
            if many != nil { return many!.insert(String(decoding: key, as: UTF8.self)).inserted }
            beyondASCII = beyondASCII || key.contains { $0 >= 0x80 }
            if beyondASCII {
                let text = String(decoding: key, as: UTF8.self)
                for index in base..<stack.count where String(decoding: stack[index], as: UTF8.self) == text {
                    return false
                }
            } else {
                for index in base..<stack.count where stack[index].count == key.count {
                    if stack[index].withUnsafeBufferPointer({ JSONReader.sameBytes(key, $0) }) { return false }
                }
            }
            stack.append(key)
            if stack.count - base > 16 { many = Set(stack[base...].map { String(decoding: $0, as: UTF8.self) }) }
            return true
        }

        /// Takes the object's keys off `stack` once the object is read.
        func forget(from stack: inout [ArraySlice<UInt8>]) {
            if stack.count > base { stack.removeSubrange(base...) }
        }
    }

    /// Where the string at the current offset ends (its closing quote) when it holds no escape
    /// and no control character, so that its bytes are its text; nil otherwise.
    private func plainStringEnd() -> Int? {
        var end = offset + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20
        {
            end += 1
        }
        return end < bytes.count && bytes[end] == UInt8(ascii: "\"") ? end : nil
    }

    mutating func readString() throws(JSONError) -> String {
        let start = offset
        // The common string, with no escape, is one copy of its bytes.
        if let end = plainStringEnd() {
            let text = String(decoding: bytes[(offset + 1)..<end], as: UTF8.self)
            offset = end + 1
            return text
        }
        offset += 1  // "
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        func flushRun(_ end: Int) {
            if end > runStart {
                scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard offset < bytes.count else {
                throw JSONError(
                    "\(subject) is not valid JSON: the string that starts at byte \(start) never ends.")
            }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                flushRun(offset)
                offset += 1
                return String(scalars)
            }
            if byte < 0x20 {
                throw error("a control character (\(describe(byte))) must be escaped inside a string")
            }
            if byte != UInt8(ascii: "\\") {
                offset += 1
                continue
            }
            flushRun(offset)
            let escapeOffset = offset
            offset += 1
            guard offset < bytes.count else {
                throw error("\(noun) ends inside an escape sequence")
            }
            let escaped = bytes[offset]
            offset += 1
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                scalars.append(try readUnicodeEscape(escapeOffset: escapeOffset))
            default:
                offset = escapeOffset
                throw error("\"\\\(describeRaw(escaped))\" is not a valid escape sequence")
            }
            runStart = offset
        }
    }

    /// Reads the `XXXX` of `\uXXXX` (the `\u` already consumed), and a low surrogate's
    /// `\uXXXX` after a high one.
    private mutating func readUnicodeEscape(escapeOffset: Int) throws(JSONError) -> Unicode.Scalar {
        let first = try readHex4(escapeOffset: escapeOffset)
        if (0xDC00...0xDFFF).contains(first) {
            offset = escapeOffset
            throw error("\\u\(hex(first)) is a lone low surrogate")
        }
        if (0xD800...0xDBFF).contains(first) {
            let secondOffset = offset
            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                bytes[offset + 1] == UInt8(ascii: "u")
            else {
                offset = escapeOffset
                throw error("\\u\(hex(first)) is a high surrogate not followed by a \\u low surrogate")
            }
            offset += 2
            let second = try readHex4(escapeOffset: secondOffset)
            guard (0xDC00...0xDFFF).contains(second) else {
                offset = secondOffset
                throw error(
                    "\\u\(hex(first)) is a high surrogate followed by \\u\(hex(second)), not a low surrogate")
            }
            let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            return Unicode.Scalar(value)!
        }
        return Unicode.Scalar(first)!
    }

    private mutating func readHex4(escapeOffset: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard offset < bytes.count, let digit = hexDigit(bytes[offset]) else {
                offset = escapeOffset
                throw error("a \\u escape must be followed by four hexadecimal digits")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    mutating func readNumber() throws(JSONError) -> String {
        let start = offset
        try skipNumber()
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// Reads past a number, checking its grammar.
    mutating func skipNumber() throws(JSONError) {
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek(), isDigit(first) else {
            throw error("a number must have a digit after its minus sign but has \(describeCurrent())")
        }
        if first == UInt8(ascii: "0") {
            offset += 1
            if let next = peek(), isDigit(next) {
                throw error("a number may not start with a leading zero")
            }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            guard let next = peek(), isDigit(next) else {
                throw error(
                    "a number's decimal point must be followed by a digit but is followed by \(describeCurrent())")
            }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard let next = peek(), isDigit(next) else {
                throw error("a number's exponent must have a digit but has \(describeCurrent())")
            }
            skipDigits()
        }
    }

    mutating func readLiteral(_ literal: StaticString) throws(JSONError) {
        let text = literal.withUTF8Buffer { Array($0) }
        let start = offset
        for byte in text {
            guard offset < bytes.count, bytes[offset] == byte else {
                offset = start
                throw error("unexpected \(describeCurrent()) where a value was expected")
            }
            offset += 1
        }
    }

    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { offset += 1 }
    }

    func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The byte at the current offset, described, or "the end of" the noun.
    func describeCurrent() -> String {
        offset < bytes.count ? describe(bytes[offset]) : "the end of \(noun)"
    }

    /// A byte for an error message: `'x'` when printable ASCII, `byte 0x0A` otherwise.
    func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte)
            ? "'\(describeRaw(byte))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func describeRaw(_ byte: UInt8) -> String {
        (0x20...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x\(String(byte, radix: 16))"
    }

    func error(_ problem: String) -> JSONError {
        JSONError("\(subject) is not valid JSON: \(problem) (byte \(offset)).")
    }
}
