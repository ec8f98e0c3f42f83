/// Turns a `TOMLDocument` into located tables: each value with its file, line and key path,
/// keys in the order the text writes them.
struct LocatedTreeBuilder {
    var document: TOMLDocument
    var file: String

    /// The document's root table.
    func root() -> LocatedTable {
        table(TOMLDocument.rootIndex, keyPath: [])
    }

    private func table(_ index: Int, keyPath: [String]) -> LocatedTable {
        let source = document.tables[index]
        var located = LocatedTable(file: file, line: source.line, keyPath: keyPath)
        for key in source.keys {
            guard let entry = source[key] else { continue }
            located[key] = value(entry, keyPath: keyPath + [key])
        }
        return located
    }

    private func value(_ entry: TOMLEntry, keyPath: [String]) -> LocatedValue {
        let kind: LocatedValue.Kind
        switch entry.value {
        case .string(let text): kind = .string(text)
        case .integer(let number): kind = .integer(number)
        case .float(let number): kind = .float(number)
        case .bool(let flag): kind = .bool(flag)
        case .dateTime(let dateTime): kind = .date(dateTime.text)
        case .array(let elements): kind = .array(elements.map { value($0, keyPath: keyPath) })
        case .table(let index): kind = .table(table(index, keyPath: keyPath))
        case .tableArray(let elements):
            kind = .array(
                elements.map { index in
                    let element = table(index, keyPath: keyPath)
                    return LocatedValue(value: .table(element), file: file, line: element.line, keyPath: keyPath)
                })
        }
        return LocatedValue(value: kind, file: file, line: entry.line, keyPath: keyPath)
    }
}
