/// Reads TOML 1.0 text into a `TOMLDocument` that knows the line of every key, table and array
/// element and keeps keys in the order the text writes them.
///
/// The reader walks the text's UTF-8 bytes once. It stops at the first error with a
/// `TOMLError` that names the line and column and says what is wrong. A table header written
/// twice (`[apps.mail]` again) and a key set twice are not errors here: the reader notes each
/// in `duplicates` with the line of the first, leaves the second out of the document, and reads
/// on, so that the caller can report them beside every other problem of the file. Every other
/// redefinition TOML forbids (a table made by dotted keys given a header, an inline table added
/// to, a value turned into a table) is an error.
struct TOMLReader {
    /// A table header or key written a second time.
    struct Duplicate: Sendable, Equatable {
        /// The keys of the header, or the full key path of the key.
        var keyPath: [String]
        var line: Int
        var firstLine: Int
        var isTableHeader: Bool
    }

    /// A place in the text, for errors that name where something started.
    struct Mark {
        var offset: Int
        var line: Int
        var lineStart: Int
    }

    /// Headers and keys written twice, in the order of the text.
    private(set) var duplicates: [Duplicate] = []

    let bytes: [UInt8]
    var position = 0
    var line = 1
    /// The offset of the first byte of the current line.
    var lineStart = 0
    var document = TOMLDocument()

    /// How deep keys, tables and arrays may nest; deeper text is refused.
    static let maximumDepth = 128

    init(text: String) {
        bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }  // a byte-order mark
        lineStart = position
    }

    /// Reads the whole text.
    mutating func read() throws(TOMLError) -> TOMLDocument {
        var table = TOMLDocument.rootIndex
        var tablePath: [String] = []
        while true {
            skipBlank()
            guard let byte = peek() else { break }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try consumeNewline()
                continue
            case UInt8(ascii: "#"):
                try skipComment()
                continue
            case UInt8(ascii: "["):
                (table, tablePath) = try readHeader()
            default:
                try readKeyValue(into: table, tablePath: tablePath)
            }
            skipBlank()
            if peek() == UInt8(ascii: "#") { try skipComment() }
            guard let end = peek() else { break }
            guard end == UInt8(ascii: "\n") || end == UInt8(ascii: "\r") else {
                throw error("expected the end of the line, found \(found())")
            }
            try consumeNewline()
        }
        return document
    }

    // MARK: - Tables

    /// `[a.b]` or `[[a.b]]`; returns the table that the following keys go into, and its keys.
    private mutating func readHeader() throws(TOMLError) -> (table: Int, keyPath: [String]) {
        let start = mark
        position += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { position += 1 }
        skipBlank()
        if peek() == UInt8(ascii: "]") {
            throw error("a table header must hold a key, such as [apps.mail]")
        }
        let keys = try readKey(context: "a table header, such as [apps.mail]")
        try checkDepth(keys.count, at: start)
        skipBlank()
        guard take("]") else { throw error("expected \"]\" to close the table header, found \(found())") }
        if isArray, !take("]") {
            throw error("expected \"]]\" to close the array-of-tables header, found \(found())")
        }
        let written = isArray ? "[[\(LocatedValue.dotted(keys))]]" : "[\(LocatedValue.dotted(keys))]"

        var table = TOMLDocument.rootIndex
        for (index, key) in keys.enumerated() where index < keys.count - 1 {
            table = try child(of: table, key: key, keyPath: Array(keys[...index]), for: written, at: start)
        }
        let key = keys[keys.count - 1]
        if isArray {
            return (try appendElement(to: table, key: key, keyPath: keys, written: written, at: start), keys)
        }
        guard let existing = document.tables[table][key] else {
            let defined = document.add(TOMLTable(origin: .header, line: start.line))
            document.tables[table][key] = TOMLEntry(value: .table(defined), line: start.line)
            return (defined, keys)
        }
        let dotted = LocatedValue.dotted(keys)
        switch existing.value {
        case .table(let index):
            let found = document.tables[index]
            switch found.origin {
            case .implicit:
                document.tables[index].origin = .header
                document.tables[index].definedLine = start.line
                return (index, keys)
            case .header, .arrayElement, .root:
                duplicates.append(
                    Duplicate(keyPath: keys, line: start.line, firstLine: found.definedLine, isTableHeader: true))
                // The second table is read, for its errors, into a table of its own that nothing holds.
                return (document.add(TOMLTable(origin: .header, line: start.line)), keys)
            case .dotted:
                throw error(
                    "table [\(dotted)] was already made by dotted keys at line \(found.definedLine); "
                        + "a header cannot define it again", at: start)
            case .inline:
                throw error(
                    "table [\(dotted)] was written as an inline table at line \(found.definedLine), "
                        + "which is complete as written", at: start)
            }
        case .tableArray(let elements):
            let first = elements.first.map { document.tables[$0].line } ?? existing.line
            throw error(
                "\(written) cannot define a table: \"\(dotted)\" is an array of tables ([[\(dotted)]] at line \(first))",
                at: start)
        default:
            throw error(
                "\(written) cannot define a table: \"\(dotted)\" is \(existing.value.kindDescription) set at line "
                    + "\(existing.line)", at: start)
        }
    }

    /// Adds an element to the array of tables `key` of `table` (`[[a.b]]`), making the array
    /// when it is new; returns the element's table.
    private mutating func appendElement(
        to table: Int, key: String, keyPath: [String], written: String, at start: Mark
    ) throws(TOMLError) -> Int {
        let element = document.add(TOMLTable(origin: .arrayElement, line: start.line))
        guard let existing = document.tables[table][key] else {
            document.tables[table][key] = TOMLEntry(value: .tableArray([element]), line: start.line)
            return element
        }
        let dotted = LocatedValue.dotted(keyPath)
        switch existing.value {
        case .tableArray(var elements):
            elements.append(element)
            document.tables[table][key]?.value = .tableArray(elements)
            return element
        case .array:
            throw error(
                "\(written) cannot add a table to \"\(dotted)\": it is an array written as a value at line "
                    + "\(existing.line)", at: start)
        case .table(let index):
            throw error(
                "\(written) cannot make \"\(dotted)\" an array of tables: it is a table, first named at line "
                    + "\(document.tables[index].line)", at: start)
        default:
            throw error(
                "\(written) cannot make \"\(dotted)\" an array of tables: it is \(existing.value.kindDescription) "
                    + "set at line \(existing.line)", at: start)
        }
    }

    /// The table under `key` in `table`, on the way through a header's keys (`written`) to the
    /// table it names; makes it when it is new. In an array of tables, the last element.
    private mutating func child(
        of table: Int, key: String, keyPath: [String], for written: String, at start: Mark
    ) throws(TOMLError) -> Int {
        guard let existing = document.tables[table][key] else {
            let made = document.add(TOMLTable(origin: .implicit, line: start.line))
            document.tables[table][key] = TOMLEntry(value: .table(made), line: start.line)
            return made
        }
        let dotted = LocatedValue.dotted(keyPath)
        switch existing.value {
        case .table(let index):
            guard document.tables[index].origin != .inline else {
                throw error(
                    "\(written) cannot add to \"\(dotted)\": it is an inline table, complete as written at line "
                        + "\(document.tables[index].definedLine)", at: start)
            }
            return index
        case .tableArray(let elements):
            return elements[elements.count - 1]
        default:
            throw error(
                "\(written) cannot add to \"\(dotted)\": it is \(existing.value.kindDescription) set at line "
                    + "\(existing.line)", at: start)
        }
    }

    // MARK: - Keys and values

    /// `key = value` at the current position, into `table`, whose keys from the root are
    /// `tablePath`; `depth` counts the arrays and inline tables around it.
    mutating func readKeyValue(into table: Int, tablePath: [String], depth: Int = 0) throws(TOMLError) {
        let start = mark
        let keys = try readKey(context: "a key, such as name = \"value\"")
        skipBlank()
        guard take("=") else { throw error("expected \"=\" after the key, found \(found())") }
        skipBlank()
        let keyPath = tablePath + keys
        try checkDepth(keyPath.count + depth, at: start)

        var target = table
        for (index, key) in keys.enumerated() where index < keys.count - 1 {
            target = try dottedChild(of: target, key: key, keyPath: tablePath + keys[...index], at: start)
        }
        let key = keys[keys.count - 1]
        if let existing = document.tables[target][key] {
            switch existing.value {
            case .table(let index) where document.tables[index].origin != .inline:
                throw error(
                    "key \"\(LocatedValue.dotted(keyPath))\" cannot be set: it is already a table, first named at "
                        + "line \(document.tables[index].line)", at: start)
            case .tableArray:
                throw error(
                    "key \"\(LocatedValue.dotted(keyPath))\" cannot be set: it is already an array of tables, "
                        + "begun at line \(existing.line)", at: start)
            default:
                duplicates.append(
                    Duplicate(keyPath: keyPath, line: start.line, firstLine: existing.line, isTableHeader: false))
                _ = try readValue(keyPath: keyPath, depth: depth)
                return
            }
        }
        let value = try readValue(keyPath: keyPath, depth: depth)
        document.tables[target][key] = TOMLEntry(value: value, line: start.line)
    }

    /// The table under `key` in `table` on the way through a dotted key; makes it when it is new.
    private mutating func dottedChild(
        of table: Int, key: String, keyPath: [String], at start: Mark
    ) throws(TOMLError) -> Int {
        guard let existing = document.tables[table][key] else {
            let made = document.add(TOMLTable(origin: .dotted, line: start.line))
            document.tables[table][key] = TOMLEntry(value: .table(made), line: start.line)
            return made
        }
        let dotted = LocatedValue.dotted(keyPath)
        switch existing.value {
        case .table(let index):
            let found = document.tables[index]
            switch found.origin {
            case .dotted:
                return index
            case .implicit:
                document.tables[index].origin = .dotted
                document.tables[index].definedLine = start.line
                return index
            case .header, .arrayElement, .root:
                throw error(
                    "a dotted key cannot add to table [\(dotted)], which has its own header at line "
                        + "\(found.definedLine); write the key under that header", at: start)
            case .inline:
                throw error(
                    "a dotted key cannot add to \"\(dotted)\": it is an inline table, complete as written at line "
                        + "\(found.definedLine)", at: start)
            }
        case .tableArray:
            throw error(
                "a dotted key cannot add to \"\(dotted)\": it is an array of tables, begun at line \(existing.line)",
                at: start)
        default:
            throw error(
                "a dotted key cannot add to \"\(dotted)\": it is \(existing.value.kindDescription) set at line "
                    + "\(existing.line)", at: start)
        }
    }

    /// Refuses nesting deeper than `maximumDepth`.
    func checkDepth(_ depth: Int, at start: Mark) throws(TOMLError) {
        guard depth <= Self.maximumDepth else {
            throw error(
                "keys, tables and arrays are nested too deeply (more than \(Self.maximumDepth) levels)", at: start)
        }
    }

    // MARK: - Bytes

    var mark: Mark { Mark(offset: position, line: line, lineStart: lineStart) }

    func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    func peek(at offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    /// Consumes `character` when it is next.
    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard peek() == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    /// Skips spaces and tabs.
    mutating func skipBlank() {
        while let byte = peek(), byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
    }

    /// Skips blanks, comments and line ends, as between the elements of an array.
    mutating func skipBlankLinesAndComments() throws(TOMLError) {
        while true {
            skipBlank()
            switch peek() {
            case UInt8(ascii: "#"): try skipComment()
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): try consumeNewline()
            default: return
            }
        }
    }

    /// Skips a comment up to the end of its line; control characters are not allowed in one.
    mutating func skipComment() throws(TOMLError) {
        while let byte = peek(), byte != UInt8(ascii: "\n") {
            if byte == UInt8(ascii: "\r"), peek(at: 1) == UInt8(ascii: "\n") { return }
            if Self.isControl(byte) { throw error("a comment holds a control character") }
            position += 1
        }
    }

    /// Consumes "\n" or "\r\n".
    mutating func consumeNewline() throws(TOMLError) {
        if peek() == UInt8(ascii: "\r") {
            guard peek(at: 1) == UInt8(ascii: "\n") else {
                throw error("a carriage return must be followed by a line feed")
            }
            position += 1
        }
        position += 1
        line += 1
        lineStart = position
    }

    /// Whether `byte` is a control character that TOML allows only as an escape (a tab is allowed).
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    // MARK: - Errors

    /// An error at `start`, or at the current position.
    func error(_ reason: String, at start: Mark? = nil) -> TOMLError {
        let place = start ?? mark
        var column = 1
        var offset = place.lineStart
        while offset < min(place.offset, bytes.count) {
            if bytes[offset] & 0xC0 != 0x80 { column += 1 }
            offset += 1
        }
        return TOMLError(line: place.line, column: column, reason: reason)
    }

    /// What is at the current position, for messages: `"}"`, `the end of the line`.
    func found() -> String {
        guard let byte = peek() else { return "the end of the file" }
        switch byte {
        case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "the end of the line"
        case UInt8(ascii: "\t"): return "a tab"
        case UInt8(ascii: "\""): return "'\"'"
        default:
            guard !Self.isControl(byte) else { return "a control character" }
            let text = String(decoding: bytes[position..<min(position + 4, bytes.count)], as: UTF8.self)
            guard let character = text.unicodeScalars.first else { return "a control character" }
            return "\"\(character)\""
        }
    }
}
