/// Finds the line of every key, table and array element in a TOML text, and the keys and
/// tables written twice.
///
/// TOMLKit parses values and reports syntax errors but not where each value was written;
/// this scanner walks the same text structurally (strings, comments, arrays, inline
/// tables, table headers, arrays of tables, dotted and quoted keys) without converting any
/// value. It is also the first syntax check: TOMLKit's parser (toml++) asserts — or, in a
/// release build, assumes — things about the text that a damaged file breaks (a table header
/// that starts with a key, a value where one is expected), so the scanner stops at the first
/// structural error and records it in `syntaxError`, and such text never reaches TOMLKit.
/// TOMLKit then checks what the scanner does not (escapes, numbers, dates, redefinitions).
/// A table or key written twice is renamed in `sanitizedText` to a hidden key, so that
/// TOMLKit can still parse the rest of the file and every other error is found.
struct TOMLLineScanner {
    /// One step of a path: a key, or the index of an array element.
    enum Component: Hashable {
        case key(String)
        case index(Int)
    }

    /// A table header or key written a second time.
    struct Duplicate {
        var path: [Component]
        var line: Int
        var firstLine: Int
        var isTableHeader: Bool
    }

    /// The prefix of the hidden keys that duplicates are renamed to.
    static let hiddenKeyPrefix = "\u{1}appwarden-duplicate-"

    /// The line on which each path is first written.
    private(set) var lines: [[Component]: Int] = [:]
    /// The position of each path in the file, for keeping keys in file order.
    private(set) var order: [[Component]: Int] = [:]
    /// Headers and keys written twice, in file order.
    private(set) var duplicates: [Duplicate] = []
    /// The first structural error, with its line and a sentence fragment describing it.
    private(set) var syntaxError: (line: Int, message: String)?

    private var bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var counter = 0
    private var headers: [[Component]: Int] = [:]
    private var assigned: [[Component]: Int] = [:]
    private var arrayTableCounts: [[Component]: Int] = [:]
    private var replacements: [(range: Range<Int>, text: String)] = []

    init(text: String) {
        bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }  // a byte-order mark
        scanDocument()
    }

    /// The text with every duplicate renamed to a hidden key; lines are unchanged.
    var sanitizedText: String {
        guard !replacements.isEmpty else { return String(decoding: bytes, as: UTF8.self) }
        var result: [UInt8] = []
        var cursor = 0
        for replacement in replacements.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            result += bytes[cursor..<replacement.range.lowerBound]
            result += Array(replacement.text.utf8)
            cursor = replacement.range.upperBound
        }
        result += bytes[cursor...]
        return String(decoding: result, as: UTF8.self)
    }

    // MARK: - Document

    private mutating func scanDocument() {
        var current: [Component] = []
        while position < bytes.count {
            skipBlank()
            guard let byte = peek() else { return }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                guard consumeNewline() else { return }
                continue
            case UInt8(ascii: "#"):
                guard skipComment() else { return }
                continue
            case UInt8(ascii: "["):
                guard let table = scanHeader() else { return }
                current = table
            default:
                guard scanKeyValue(in: current) else { return }
            }
            skipBlank()
            if peek() == UInt8(ascii: "#") { guard skipComment() else { return } }
            guard position >= bytes.count || peek() == UInt8(ascii: "\n") || peek() == UInt8(ascii: "\r") else {
                fail("expected the end of the line, found \(found())")
                return
            }
            if position < bytes.count {
                guard consumeNewline() else { return }
            }
        }
    }

    /// `[a.b]` or `[[a.b]]`; returns the path that following keys belong to.
    private mutating func scanHeader() -> [Component]? {
        let headerLine = line
        position += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { position += 1 }
        skipBlank()
        if peek() == UInt8(ascii: "]") {
            return fail("a table header must hold a key, such as [apps.mail]")
        }
        let keyStart = position
        guard let keys = scanKey(context: "a table header, such as [apps.mail]") else { return nil }
        let keyEnd = position
        skipBlank()
        guard expect("]") else { return fail("expected \"]\" to close the table header, found \(found())") }
        if isArray {
            guard expect("]") else {
                return fail("expected \"]]\" to close the array-of-tables header, found \(found())")
            }
        }

        var path = resolve(keys)
        recordPrefixes(of: path, line: headerLine)
        if isArray {
            let index = arrayTableCounts[path, default: 0]
            arrayTableCounts[path] = index + 1
            record(path, line: headerLine)
            path.append(.index(index))
            record(path, line: headerLine)
            return path
        }
        if let firstLine = headers[path] {
            duplicates.append(Duplicate(path: path, line: headerLine, firstLine: firstLine, isTableHeader: true))
            return hide(keyStart..<keyEnd)
        }
        headers[path] = headerLine
        record(path, line: headerLine)
        return path
    }

    /// `key = value` at the current position, inside the table at `table`.
    private mutating func scanKeyValue(in table: [Component]) -> Bool {
        let keyLine = line
        let keyStart = position
        guard let keys = scanKey(context: "a key, such as name = \"value\"") else { return false }
        let keyEnd = position
        skipBlank()
        guard expect("=") else { return fail("expected \"=\" after the key, found \(found())") }
        skipBlank()
        var path = table + keys.map(Component.key)
        if let firstLine = assigned[path] {
            duplicates.append(Duplicate(path: path, line: keyLine, firstLine: firstLine, isTableHeader: false))
            path = table + hide(keyStart..<keyEnd)
        } else {
            assigned[path] = keyLine
            recordPrefixes(of: path, line: keyLine)
            record(path, line: keyLine)
        }
        return scanValue(at: path)
    }

    /// Renames the key written in `range` to a fresh hidden key and returns its path.
    private mutating func hide(_ range: Range<Int>) -> [Component] {
        let number = replacements.count + 1
        replacements.append((range, "\"\\u0001appwarden-duplicate-\(number)\""))
        let name = "\(Self.hiddenKeyPrefix)\(number)"
        return [.key(name)]
    }

    /// Maps header keys to a path, stepping into the last element of every array of tables.
    private func resolve(_ keys: [String]) -> [Component] {
        var path: [Component] = []
        for key in keys {
            path.append(.key(key))
            if let count = arrayTableCounts[path], count > 0, path.count < keys.count {
                path.append(.index(count - 1))
            }
        }
        return path
    }

    private mutating func record(_ path: [Component], line: Int) {
        guard lines[path] == nil else { return }
        lines[path] = line
        order[path] = counter
        counter += 1
    }

    private mutating func recordPrefixes(of path: [Component], line: Int) {
        guard path.count > 1 else { return }
        for length in 1..<path.count { record(Array(path[..<length]), line: line) }
    }

    // MARK: - Values

    private mutating func scanValue(at path: [Component]) -> Bool {
        guard path.count < Self.maximumDepth else { return fail("arrays and tables are nested too deeply") }
        guard let byte = peek(), !Self.scalarTerminators.contains(byte) else {
            return fail("expected a value, found \(found())")
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return scanString() != nil
        case UInt8(ascii: "["):
            return scanArray(at: path)
        case UInt8(ascii: "{"):
            return scanInlineTable(at: path)
        default:
            let start = position
            while let next = peek(), !Self.scalarTerminators.contains(next) { position += 1 }
            return checkDateTime(bytes[start..<position])
        }
    }

    /// toml++ takes a bare value for a date when, with underscores skipped, it starts with ten
    /// characters, the first a digit and the fifth and eighth dashes (a space and a digit
    /// after them make it read on for a time); a "T" and a colon anywhere make it read a date
    /// and time. It asserts things about such values that damaged text breaks — `1979-05-27T:`,
    /// `1979-05-27 5` and `1958-05-2x 5` abort the process — so every value of that shape must
    /// be a well-formed TOML date (`1979-05-27`), optionally followed by "T", "t" or a space
    /// and a time (`07:32:00`, a fraction, then "Z" or an offset such as `-07:00`). No other
    /// TOML value has that shape; what follows the value on its line is left to TOMLKit.
    private mutating func checkDateTime(_ scalar: ArraySlice<UInt8>) -> Bool {
        let text = Array(String(decoding: scalar, as: UTF8.self).unicodeScalars)
        let head = text.prefix { $0 != " " && $0 != "\t" }.filter { $0 != "_" }
        guard head.count >= 10, Self.isDigit(head[0]), head[4] == "-", head[7] == "-" else { return true }
        var index = 0
        func digits(_ count: Int) -> Bool {
            guard index + count <= text.count, text[index..<index + count].allSatisfy(Self.isDigit) else {
                return false
            }
            index += count
            return true
        }
        func literal(_ characters: Unicode.Scalar...) -> Bool {
            guard index < text.count, characters.contains(text[index]) else { return false }
            index += 1
            return true
        }
        func endsValue() -> Bool { index == text.count || text[index] == " " || text[index] == "\t" }

        guard digits(4), literal("-"), digits(2), literal("-"), digits(2) else {
            return fail("a date must be written as YYYY-MM-DD, such as 1979-05-27")
        }
        let startsTime =
            literal("T", "t")
            || (index + 1 < text.count && text[index] == " " && Self.isDigit(text[index + 1]) && literal(" "))
        guard startsTime else {
            return endsValue() ? true : fail("a date must be written as YYYY-MM-DD, such as 1979-05-27")
        }
        guard digits(2) else {
            return fail(
                "a date and time must give the hour as two digits right after the date, such as 1979-05-27T07:32:00")
        }
        let timeMessage =
            "a date and time must give the time as HH:MM:SS, then optionally a fraction and \"Z\" or an offset,"
            + " such as 1979-05-27T07:32:00.5-07:00"
        guard literal(":"), digits(2), literal(":"), digits(2) else { return fail(timeMessage) }
        if literal(".") {
            guard digits(1) else { return fail(timeMessage) }
            while digits(1) {}
        }
        if !literal("Z", "z"), literal("+", "-") {
            guard digits(2), literal(":"), digits(2) else { return fail(timeMessage) }
        }
        return endsValue() ? true : fail(timeMessage)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    /// The deepest path the scanner follows; deeper nesting stops the scan.
    private static let maximumDepth = 128

    private static let scalarTerminators: Set<UInt8> = Set(",]}#\n\r".utf8)

    private mutating func scanArray(at path: [Component]) -> Bool {
        position += 1
        var index = 0
        while true {
            guard skipBlankLinesAndComments() else { return false }
            if peek() == UInt8(ascii: "]") {
                position += 1
                return true
            }
            let element = path + [.index(index)]
            record(element, line: line)
            guard scanValue(at: element) else { return false }
            index += 1
            guard skipBlankLinesAndComments() else { return false }
            if peek() == UInt8(ascii: ",") {
                position += 1
            } else if peek() != UInt8(ascii: "]") {
                return fail("expected \",\" or \"]\" in the array, found \(found())")
            }
        }
    }

    private mutating func scanInlineTable(at path: [Component]) -> Bool {
        position += 1
        skipBlank()
        if peek() == UInt8(ascii: "}") {
            position += 1
            return true
        }
        while true {
            skipBlank()
            guard scanKeyValue(in: path) else { return false }
            skipBlank()
            guard let byte = peek(), byte == UInt8(ascii: "}") || byte == UInt8(ascii: ",") else {
                return fail(
                    "expected \",\" or \"}\" in the inline table (which must fit on one line), found \(found())")
            }
            position += 1
            if byte == UInt8(ascii: "}") { return true }
        }
    }

    // MARK: - Keys and strings

    /// A dotted key; each part bare, "basic" or 'literal'.
    private mutating func scanKey(context: String) -> [String]? {
        var keys: [String] = []
        while true {
            skipBlank()
            guard let key = scanSimpleKey() else {
                if syntaxError == nil { fail("expected \(context), found \(found())") }
                return nil
            }
            keys.append(key)
            skipBlank()
            guard peek() == UInt8(ascii: ".") else { return keys }
            position += 1
        }
    }

    private mutating func scanSimpleKey() -> String? {
        guard let byte = peek() else { return nil }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            // Multi-line strings are not keys.
            if position + 2 < bytes.count, bytes[position + 1] == byte, bytes[position + 2] == byte { return nil }
            return scanString()
        }
        let start = position
        while let next = peek(), Self.isBareKeyByte(next) { position += 1 }
        guard position > start else { return nil }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    /// Any of the four kinds of string; returns its decoded text (exact for keys, which are
    /// single-line), or nil when the string does not end.
    private mutating func scanString() -> String? {
        guard let quote = peek() else { return nil }
        let isBasic = quote == UInt8(ascii: "\"")
        let isMultiline = position + 2 < bytes.count && bytes[position + 1] == quote && bytes[position + 2] == quote
        position += isMultiline ? 3 : 1
        var decoded: [UInt8] = []
        while let byte = peek() {
            if byte == quote {
                if !isMultiline {
                    position += 1
                    return String(decoding: decoded, as: UTF8.self)
                }
                if position + 2 < bytes.count, bytes[position + 1] == quote, bytes[position + 2] == quote {
                    position += 3
                    // Up to two more quotes belong to the string's content.
                    var extra = 0
                    while extra < 2, peek() == quote {
                        position += 1
                        extra += 1
                    }
                    return String(decoding: decoded, as: UTF8.self)
                }
                decoded.append(byte)
                position += 1
            } else if byte == UInt8(ascii: "\n") {
                guard isMultiline else { return fail("a string is not closed before the end of the line") }
                line += 1
                decoded.append(byte)
                position += 1
            } else if byte == UInt8(ascii: "\\") && isBasic {
                position += 1
                guard let escaped = peek() else { break }
                if escaped == UInt8(ascii: "\n") {
                    line += 1
                    position += 1
                    continue
                }
                position += 1
                decoded += Self.unescape(escaped, scanner: &self)
            } else {
                decoded.append(byte)
                position += 1
            }
        }
        return fail("a string is not closed before the end of the file")
    }

    private static func unescape(_ escaped: UInt8, scanner: inout TOMLLineScanner) -> [UInt8] {
        switch escaped {
        case UInt8(ascii: "b"): return [0x08]
        case UInt8(ascii: "t"): return [0x09]
        case UInt8(ascii: "n"): return [0x0A]
        case UInt8(ascii: "f"): return [0x0C]
        case UInt8(ascii: "r"): return [0x0D]
        case UInt8(ascii: "e"): return [0x1B]
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let length = escaped == UInt8(ascii: "u") ? 4 : 8
            guard scanner.position + length <= scanner.bytes.count else { return [] }
            let hex = String(decoding: scanner.bytes[scanner.position..<scanner.position + length], as: UTF8.self)
            scanner.position += length
            guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return [] }
            return Array(String(Character(scalar)).utf8)
        default: return [escaped]
        }
    }

    // MARK: - Whitespace

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func expect(_ character: Unicode.Scalar) -> Bool {
        guard peek() == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    private mutating func skipBlank() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
    }

    /// Skips a comment up to the end of its line; control characters are not allowed in one.
    private mutating func skipComment() -> Bool {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\n") {
                return true
            }
            if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
                return fail("a comment holds a control character")
            }
            position += 1
        }
        return true
    }

    private mutating func consumeNewline() -> Bool {
        if peek() == UInt8(ascii: "\r") { position += 1 }
        guard peek() == UInt8(ascii: "\n") else { return fail("a carriage return must be followed by a line feed") }
        position += 1
        line += 1
        return true
    }

    private mutating func skipBlankLinesAndComments() -> Bool {
        while true {
            skipBlank()
            switch peek() {
            case UInt8(ascii: "#"):
                guard skipComment() else { return false }
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                guard consumeNewline() else { return false }
            default: return true
            }
        }
    }

    /// Records the first structural error; returns false (or nil) for the caller to pass on.
    @discardableResult
    private mutating func fail(_ message: String) -> Bool {
        if syntaxError == nil { syntaxError = (line, message) }
        return false
    }

    private mutating func fail<T>(_ message: String) -> T? {
        _ = fail(message) as Bool
        return nil
    }

    /// What is at the current position, for messages: `"}"`, `the end of the line`.
    private func found() -> String {
        guard let byte = peek() else { return "the end of the file" }
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "the end of the line"
        case UInt8(ascii: "\t"): return "a tab"
        case UInt8(ascii: "\""): return "'\"'"
        default:
            let text = String(decoding: bytes[position..<min(position + 4, bytes.count)], as: UTF8.self)
            guard let character = text.first, byte >= 0x20, byte != 0x7F else { return "a control character" }
            return "\"\(character)\""
        }
    }
}
