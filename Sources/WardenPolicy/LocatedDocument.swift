/// A TOML document whose every value knows its file and line (for policies and scenarios).
///
/// `TOMLReader` reads the text (TOML 1.0) and notes the line of each key, table and array
/// element and the order in which the file writes them.
public struct LocatedDocument: Sendable, Equatable {
    /// The document's root table, keys in file order.
    public var root: LocatedTable
    /// The file, as it was named when the document was loaded.
    public var file: String
    /// The first word of this file's messages: "Policy" or "Scenario".
    public var label: String
    /// Problems found while reading that did not stop the reading (a table or key written
    /// twice; the second one is left out of `root`). Empty for documents made with the public
    /// initializers, which throw instead.
    var readingDiagnostics: [PolicyDiagnostic] = []

    /// Parses `text`, naming `file` in every message.
    ///
    /// Throws every problem found: a TOML syntax error (with its line), and every table or key
    /// written twice ("app "mail" is declared twice (first at line 4).").
    public init(text: String, file: String, label: String = "Policy") throws(PolicyError) {
        try self.init(lenientText: text, file: file, label: label)
        if !readingDiagnostics.isEmpty { throw PolicyError(diagnostics: readingDiagnostics) }
    }

    /// Reads and parses the file at `path`, naming it as `path` in every message.
    public init(path: String, label: String = "Policy") throws(PolicyError) {
        let text = try Self.read(path: path, label: label)
        try self.init(text: text, file: path, label: label)
    }

    /// Parses `text`, keeping problems that do not stop the reading in `readingDiagnostics`.
    init(lenientText text: String, file: String, label: String) throws(PolicyError) {
        self.file = file
        self.label = label
        var reader = TOMLReader(text: text)
        let document: TOMLDocument
        do {
            document = try reader.read()
        } catch {
            let syntax = PolicyDiagnostic(
                file: file, line: error.line, key: nil, message: "the file is not valid TOML: \(error.reason).",
                label: label)
            throw PolicyError(
                diagnostics: Self.diagnostics(for: reader.duplicates, file: file, label: label) + [syntax])
        }
        readingDiagnostics = Self.diagnostics(for: reader.duplicates, file: file, label: label)
        root = LocatedTreeBuilder(document: document, file: file).root()
    }

    /// Reads a UTF-8 text file, turning every failure into a sentence (`TextFile`).
    static func read(path: String, label: String) throws(PolicyError) -> String {
        switch TextFile.read(path) {
        case .success(let text): return text
        case .failure(let failure):
            let sentence =
                failure == .empty && label == "Policy"
                ? "the file is empty; a policy declares each app in an [apps.NAME] table (see policies/README.md)."
                : failure.sentence
            throw PolicyError(diagnostics: [
                PolicyDiagnostic(file: path, line: nil, key: nil, message: sentence, label: label)
            ])
        }
    }

    private static func diagnostics(
        for duplicates: [TOMLReader.Duplicate], file: String, label: String
    ) -> [PolicyDiagnostic] {
        duplicates.map { duplicate in
            let keys = duplicate.keyPath
            let dotted = LocatedValue.dotted(keys)
            let message: String
            if duplicate.isTableHeader, keys.count == 2, keys[0] == "apps" {
                message = "app \"\(keys[1])\" is declared twice (first at line \(duplicate.firstLine))."
            } else if duplicate.isTableHeader, keys.count == 2, keys[0] == "resources" {
                message = "resource \"\(keys[1])\" is declared twice (first at line \(duplicate.firstLine))."
            } else if duplicate.isTableHeader {
                message = "table [\(dotted)] is declared twice (first at line \(duplicate.firstLine))."
            } else {
                message = "key \"\(dotted)\" is set twice (first at line \(duplicate.firstLine))."
            }
            return PolicyDiagnostic(file: file, line: duplicate.line, key: dotted, message: message, label: label)
        }
    }
}
