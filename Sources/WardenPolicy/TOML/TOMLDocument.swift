/// A TOML document as `TOMLReader` reads it: every table in one array, the root first.
///
/// A table holds other tables by their index in `tables`, so that the reader can add to any
/// table in place while it reads (`[apps.mail]` long after `[apps]`) without copying the tables
/// around it.
struct TOMLDocument: Sendable {
    /// Every table of the document; `tables[TOMLDocument.rootIndex]` is the root.
    var tables: [TOMLTable] = [TOMLTable(origin: .root, line: 1)]

    /// The index of the root table in `tables`.
    static let rootIndex = 0

    /// The root table.
    var root: TOMLTable { tables[Self.rootIndex] }

    /// Adds a table and returns its index.
    mutating func add(_ table: TOMLTable) -> Int {
        tables.append(table)
        return tables.count - 1
    }
}
