extension TOMLReader {
    /// A dotted key: bare, "basic" or 'literal' parts joined by dots, with blanks allowed around
    /// the dots. `context` names what was expected, for the message when there is no key.
    mutating func readKey(context: String) throws(TOMLError) -> [String] {
        var keys: [String] = []
        while true {
            skipBlank()
            keys.append(try readSimpleKey(context: context))
            skipBlank()
            guard take(".") else { return keys }
        }
    }

    private mutating func readSimpleKey(context: String) throws(TOMLError) -> String {
        guard let byte = peek() else { throw error("expected \(context), found \(found())") }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            if peek(at: 1) == byte, peek(at: 2) == byte { throw error("a key cannot be a multi-line string") }
            return try readString()
        }
        let start = position
        while let next = peek(), Self.isBareKeyByte(next) { position += 1 }
        if let next = peek(), next >= 0x80 {
            throw error(
                "a bare key may hold only ASCII letters, digits, \"-\" and \"_\", not \(found()); "
                    + "put the key in quotes")
        }
        guard position > start else { throw error("expected \(context), found \(found())") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// Any of the four kinds of string at the current position, decoded: "basic" with escapes,
    /// 'literal' as written, and both multi-line, whose line ends are read as "\n".
    mutating func readString() throws(TOMLError) -> String {
        let start = mark
        let quote = bytes[position]
        let isBasic = quote == UInt8(ascii: "\"")
        let isMultiline = peek(at: 1) == quote && peek(at: 2) == quote
        position += isMultiline ? 3 : 1
        // A line end right after the opening quotes is not part of the string.
        if isMultiline,
            peek() == UInt8(ascii: "\n") || (peek() == UInt8(ascii: "\r") && peek(at: 1) == UInt8(ascii: "\n"))
        {
            try consumeNewline()
        }
        var decoded: [UInt8] = []
        var runStart = position
        while true {
            guard let byte = peek() else {
                throw error("a string is not closed before the end of the file", at: start)
            }
            switch byte {
            case quote:
                guard isMultiline else {
                    decoded += bytes[runStart..<position]
                    position += 1
                    return String(decoding: decoded, as: UTF8.self)
                }
                var count = 1
                while peek(at: count) == quote { count += 1 }
                guard count >= 3 else {
                    position += count
                    continue
                }
                guard count <= 5 else {
                    throw error(
                        "a multi-line string may end with at most five quotes in a row: up to two of its own and "
                            + "the three that close it")
                }
                position += count - 3
                decoded += bytes[runStart..<position]
                position += 3
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\") where isBasic:
                decoded += bytes[runStart..<position]
                try readEscape(into: &decoded, multiline: isMultiline)
                runStart = position
            case UInt8(ascii: "\n") where isMultiline:
                position += 1
                line += 1
                lineStart = position
            case UInt8(ascii: "\r") where isMultiline && peek(at: 1) == UInt8(ascii: "\n"):
                decoded += bytes[runStart..<position]
                position += 1
                runStart = position
            case UInt8(ascii: "\n"):
                throw error("a string is not closed before the end of the line", at: start)
            case UInt8(ascii: "\r") where peek(at: 1) == UInt8(ascii: "\n"):
                throw error("a string is not closed before the end of the line", at: start)
            default:
                guard !Self.isControl(byte) else {
                    let hex = Self.hex(UInt32(byte))
                    throw error(
                        "a string cannot hold the control character U+\(hex); write it as the escape \\u\(hex) "
                            + "in a string between double quotes")
                }
                position += 1
            }
        }
    }

    /// An escape after a backslash in a basic string; in a multi-line one, a backslash at the
    /// end of a line also takes away the line end and every blank and line end after it.
    private mutating func readEscape(into decoded: inout [UInt8], multiline: Bool) throws(TOMLError) {
        let start = mark
        position += 1
        guard let byte = peek() else { return }
        switch byte {
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): decoded.append(byte)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let length = byte == UInt8(ascii: "u") ? 4 : 8
            let digits = bytes[min(position + 1, bytes.count)..<min(position + 1 + length, bytes.count)]
            guard digits.count == length, digits.allSatisfy({ Self.hexValue($0) != nil }) else {
                throw error(
                    "the escape \\\(Character(Unicode.Scalar(byte))) must be followed by \(length == 4 ? "four" : "eight") "
                        + "hexadecimal digits, such as \(length == 4 ? "\\u00E9" : "\\U0001F600")", at: start)
            }
            let value = digits.reduce(UInt32(0)) { $0 << 4 | UInt32(Self.hexValue($1)!) }
            guard let scalar = Unicode.Scalar(value) else {
                throw error(
                    "the escape \\\(Character(Unicode.Scalar(byte)))\(String(decoding: digits, as: UTF8.self)) "
                        + "is not a Unicode scalar value (surrogates D800 to DFFF and values above 10FFFF are not)",
                    at: start)
            }
            UTF8.encode(scalar) { decoded.append($0) }
            position += length
        default:
            if multiline, try skipLineEndingBackslash() { return }
            let shown =
                byte >= 0x20 && byte < 0x7F ? "\"\\\(Character(Unicode.Scalar(byte)))\"" : "\"\\\" before \(found())"
            throw error(
                "unknown escape sequence \(shown); a string may use \\b, \\t, \\n, \\f, \\r, \\\", \\\\, "
                    + "\\uXXXX and \\UXXXXXXXX (write \\\\ for a backslash)", at: start)
        }
        position += 1
    }

    /// After a backslash in a multi-line basic string: when only blanks follow it on its line,
    /// skips them, the line end and every blank and line end after it, and returns true.
    private mutating func skipLineEndingBackslash() throws(TOMLError) -> Bool {
        var offset = 0
        while peek(at: offset) == UInt8(ascii: " ") || peek(at: offset) == UInt8(ascii: "\t") { offset += 1 }
        let end = peek(at: offset)
        guard end == UInt8(ascii: "\n") || (end == UInt8(ascii: "\r") && peek(at: offset + 1) == UInt8(ascii: "\n"))
        else { return false }
        position += offset
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): position += 1
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try consumeNewline()
            default: return true
            }
        }
        return true
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `value` in upper-case hexadecimal, at least four digits: "001F".
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
