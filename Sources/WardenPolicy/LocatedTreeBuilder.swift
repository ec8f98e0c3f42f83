import TOMLKit

/// Turns TOMLKit's tables into located tables, taking lines and key order from a scanner.
struct LocatedTreeBuilder {
    var scanner: TOMLLineScanner
    var file: String

    func table(
        from table: TOMLTable, path: [TOMLLineScanner.Component], keyPath: [String], line: Int
    ) -> LocatedTable {
        var located = LocatedTable(file: file, line: line, keyPath: keyPath)
        let keys = table.keys
            .filter { !$0.hasPrefix(TOMLLineScanner.hiddenKeyPrefix) }
            .sorted { lhs, rhs in
                let left = scanner.order[path + [.key(lhs)]] ?? Int.max
                let right = scanner.order[path + [.key(rhs)]] ?? Int.max
                return left != right ? left < right : lhs < rhs
            }
        for key in keys {
            guard let value = table[key]?.tomlValue else { continue }
            let childPath = path + [.key(key)]
            let childLine = scanner.lines[childPath] ?? line
            located[key] = self.value(from: value, path: childPath, keyPath: keyPath + [key], line: childLine)
        }
        return located
    }

    func value(
        from value: TOMLValue, path: [TOMLLineScanner.Component], keyPath: [String], line: Int
    ) -> LocatedValue {
        let kind: LocatedValue.Kind
        switch value.type {
        case .string: kind = .string(value.string ?? "")
        case .int: kind = .integer(value.int ?? 0)
        case .double: kind = .float(value.double ?? 0)
        case .bool: kind = .bool(value.bool ?? false)
        case .date, .time, .dateTime: kind = .date(value.debugDescription)
        case .table:
            kind = .table(table(from: value.table ?? TOMLTable(), path: path, keyPath: keyPath, line: line))
        case .array:
            var elements: [LocatedValue] = []
            if let array = value.array {
                for index in 0..<array.count {
                    let elementPath = path + [.index(index)]
                    let elementLine = scanner.lines[elementPath] ?? line
                    elements.append(
                        self.value(from: array[index].tomlValue, path: elementPath, keyPath: keyPath, line: elementLine)
                    )
                }
            }
            kind = .array(elements)
        }
        return LocatedValue(value: kind, file: file, line: line, keyPath: keyPath)
    }
}
