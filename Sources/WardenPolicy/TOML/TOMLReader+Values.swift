extension TOMLReader {
    /// The bytes that end a value on its line: blanks, separators, closing brackets, a comment.
    static func endsValue(_ byte: UInt8?) -> Bool {
        guard let byte else { return true }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","),
            UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#"):
            return true
        default:
            return false
        }
    }

    /// The value at the current position, written under `keyPath`.
    mutating func readValue(keyPath: [String], depth: Int = 0) throws(TOMLError) -> TOMLValue {
        try checkDepth(keyPath.count + depth, at: mark)
        guard let byte = peek(), !Self.endsValue(byte) else {
            throw error("expected a value, found \(found())")
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return .string(try readString())
        case UInt8(ascii: "["):
            return try readArray(keyPath: keyPath, depth: depth)
        case UInt8(ascii: "{"):
            return try readInlineTable(keyPath: keyPath, depth: depth)
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            if isDateShaped() || isTimeShaped() { return .dateTime(try readDateTime()) }
            return try readNumber()
        default:
            return try readWord()
        }
    }

    /// `true`, `false`, `inf` or `nan`; any other bare word is refused with a hint to quote it.
    private mutating func readWord() throws(TOMLError) -> TOMLValue {
        let start = mark
        while let byte = peek(), !Self.endsValue(byte), !Self.isControl(byte), byte != UInt8(ascii: "=") {
            position += 1
        }
        guard position > start.offset else { throw error("expected a value, found \(found())") }
        let word = String(decoding: bytes[start.offset..<position], as: UTF8.self)
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf": return .float(.infinity)
        case "nan": return .float(.nan)
        default:
            let shown =
                "\"" + (word.unicodeScalars.count > 40 ? String(word.unicodeScalars.prefix(40)) + "…" : word) + "\""
            let hint: String
            if word.lowercased() == "true" || word.lowercased() == "false" {
                hint = " (a boolean is written true or false, in lower case)"
            } else if word.utf8.allSatisfy({ $0 >= 0x80 || Self.isBareKeyByte($0) }) {
                hint = " (a string must be in quotes, such as \(shown))"
            } else {
                hint = ""
            }
            throw error("expected a value, found \(shown)\(hint)", at: start)
        }
    }

    /// `[1, 2, 3]`, over as many lines as it likes, with comments and a trailing comma.
    private mutating func readArray(keyPath: [String], depth: Int) throws(TOMLError) -> TOMLValue {
        position += 1
        var elements: [TOMLEntry] = []
        while true {
            try skipBlankLinesAndComments()
            if take("]") { return .array(elements) }
            let elementLine = line
            let value = try readValue(keyPath: keyPath, depth: depth + 1)
            elements.append(TOMLEntry(value: value, line: elementLine))
            try skipBlankLinesAndComments()
            if take("]") { return .array(elements) }
            guard take(",") else { throw error("expected \",\" or \"]\" in the array, found \(found())") }
        }
    }

    /// `{ a = 1, b.c = "x" }` on one line; nothing may add to it afterwards.
    private mutating func readInlineTable(keyPath: [String], depth: Int) throws(TOMLError) -> TOMLValue {
        let table = document.add(TOMLTable(origin: .inline, line: line))
        position += 1
        skipBlank()
        if take("}") { return .table(table) }
        while true {
            skipBlank()
            try readKeyValue(into: table, tablePath: keyPath, depth: depth + 1)
            skipBlank()
            if take("}") { return .table(table) }
            guard take(",") else {
                throw error(
                    "expected \",\" or \"}\" in the inline table (which must fit on one line), found \(found())")
            }
            skipBlank()
            if peek() == UInt8(ascii: "}") {
                throw error("an inline table cannot end with a comma; remove the \",\" before \"}\"")
            }
        }
    }
}
