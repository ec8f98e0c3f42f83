import Foundation

/// Reads the subset of YAML that `docs/openapi.yaml` is written in: block mappings and
/// sequences by indentation, plain, single- and double-quoted scalars, and `[]` / `{}`.
/// Mappings become `[String: Any]`, sequences `[Any]`, scalars `String`.
struct OpenAPIYAMLReader {
    private struct Line {
        var indent: Int
        var text: String
        var number: Int
    }

    private var lines: [Line]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let content = raw.drop { $0 == " " }
            if content.isEmpty || content.hasPrefix("#") { return nil }
            return Line(indent: raw.count - content.count, text: String(content), number: index + 1)
        }
    }

    /// The document's root mapping.
    mutating func read() throws -> [String: Any] {
        var index = 0
        guard let root = try block(&index, indent: 0) as? [String: Any] else {
            throw HarnessError(message: "The YAML document is not a mapping.")
        }
        if index < lines.count {
            throw HarnessError(message: "Line \(lines[index].number) of the YAML document is indented unexpectedly.")
        }
        return root
    }

    private mutating func block(_ index: inout Int, indent: Int) throws -> Any {
        guard index < lines.count else { return [String: Any]() }
        if isItem(lines[index].text) { return try sequence(&index, indent: indent) }
        var mapping: [String: Any] = [:]
        while index < lines.count, lines[index].indent == indent, !isItem(lines[index].text) {
            let line = lines[index]
            let (key, rest) = try splitKey(line)
            index += 1
            if let rest {
                mapping[key] = try scalar(rest, line: line.number)
            } else if index < lines.count, lines[index].indent > indent {
                mapping[key] = try block(&index, indent: lines[index].indent)
            } else if index < lines.count, lines[index].indent == indent, isItem(lines[index].text) {
                mapping[key] = try sequence(&index, indent: indent)
            } else {
                mapping[key] = ""
            }
        }
        return mapping
    }

    private mutating func sequence(_ index: inout Int, indent: Int) throws -> [Any] {
        var items: [Any] = []
        while index < lines.count, lines[index].indent == indent, isItem(lines[index].text) {
            let rest = String(lines[index].text.dropFirst(2))
            if rest.hasPrefix("'") || rest.hasPrefix("\"") || !rest.contains(": ") && !rest.hasSuffix(":") {
                items.append(try scalar(rest, line: lines[index].number))
                index += 1
            } else {
                lines[index] = Line(indent: indent + 2, text: rest, number: lines[index].number)
                items.append(try block(&index, indent: indent + 2))
            }
        }
        return items
    }

    private func isItem(_ text: String) -> Bool { text.hasPrefix("- ") }

    private func splitKey(_ line: Line) throws -> (String, String?) {
        let text = line.text
        var key: String
        var rest: Substring
        if let quote = text.first, quote == "'" || quote == "\"" {
            guard let end = text.dropFirst().firstIndex(of: quote) else {
                throw HarnessError(message: "Line \(line.number): an unterminated quoted key.")
            }
            key = String(text[text.index(after: text.startIndex)..<end])
            rest = text[text.index(after: end)...]
        } else if let colon = text.range(of: ": ")
            ?? (text.hasSuffix(":") ? text.range(of: ":", options: .backwards) : nil)
        {
            key = String(text[..<colon.lowerBound])
            rest = text[colon.lowerBound...]
        } else {
            throw HarnessError(message: "Line \(line.number): \"\(text)\" is neither a key nor an item.")
        }
        guard rest.hasPrefix(":") else {
            throw HarnessError(message: "Line \(line.number): a key must be followed by a colon.")
        }
        rest = rest.dropFirst().drop { $0 == " " }
        return (key, rest.isEmpty ? nil : String(rest))
    }

    /// A scalar, refused where YAML would refuse it: a plain one with ": " or " #" in it (a
    /// mapping or a comment would start there), a quoted one with its own quote left unescaped.
    private func scalar(_ text: String, line: Int) throws -> Any {
        if text == "[]" { return [Any]() }
        if text == "{}" { return [String: Any]() }
        if text.hasPrefix("'"), text.hasSuffix("'"), text.count >= 2 {
            let inner = String(text.dropFirst().dropLast())
            guard !inner.replacingOccurrences(of: "''", with: "").contains("'") else {
                throw HarnessError(message: "Line \(line): a single-quoted scalar with an undoubled ' inside.")
            }
            return inner.replacingOccurrences(of: "''", with: "'")
        }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
            let inner = String(text.dropFirst().dropLast())
            let unescaped = inner.replacingOccurrences(of: "\\\\", with: "").replacingOccurrences(of: "\\\"", with: "")
            guard !unescaped.contains("\"") else {
                throw HarnessError(message: "Line \(line): a double-quoted scalar with an unescaped \" inside.")
            }
            return inner.replacingOccurrences(of: "\\\"", with: "\"")
        }
        guard !text.contains(": "), !text.contains(" #"), !text.hasSuffix(":") else {
            throw HarnessError(message: "Line \(line): a plain scalar with \": \" or \" #\" in it; quote it.")
        }
        return text
    }
}
