import WardenPolicy

/// A located document written out one value per line, for comparing whole trees:
/// `apps.mail.args[1]  line 12  string "--hold"`.
///
/// Each line gives the value's own key path (array elements add their index), the line it
/// carries and its kind and value; a table adds the line of the table itself. Strings are
/// written with Swift's escapes, so that every character is visible.
enum LocatedTreeDump {
    /// The lines of `document`'s tree, keys in the order the document keeps them.
    static func lines(of document: LocatedDocument) -> [String] {
        var lines: [String] = []
        write(document.root, into: &lines)
        return lines
    }

    private static func write(_ table: LocatedTable, into lines: inout [String]) {
        for (_, value) in table.pairs {
            write(value, name: value.dottedKey, into: &lines)
        }
    }

    private static func write(_ value: LocatedValue, name: String, into lines: inout [String]) {
        let head = "\(name)  line \(value.line)  "
        switch value.value {
        case .string(let text): lines.append(head + "string \(text.debugDescription)")
        case .integer(let number): lines.append(head + "integer \(number)")
        case .float(let number): lines.append(head + "float \(number)")
        case .bool(let flag): lines.append(head + "bool \(flag)")
        case .date(let text): lines.append(head + "date \(text)")
        case .array(let elements):
            lines.append(head + "array of \(elements.count)")
            for (index, element) in elements.enumerated() {
                write(element, name: "\(name)[\(index)]", into: &lines)
            }
        case .table(let table):
            lines.append(head + "table at line \(table.line), path \(LocatedValue.dotted(table.keyPath))")
            write(table, into: &lines)
        }
    }
}
