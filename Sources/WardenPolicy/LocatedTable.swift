/// A TOML table whose keys keep the order in which the file writes them and whose values
/// know their file and line.
public struct LocatedTable: Sendable, Equatable {
    /// The keys, in the order the file first writes them.
    public private(set) var keys: [String]
    private var entries: [String: LocatedValue]
    /// The file the table was read from.
    public var file: String
    /// The line of the table's header (`[apps.mail]`), or of the first key that created it;
    /// 1 for a document's root.
    public var line: Int
    /// The keys leading from the document's root to this table.
    public var keyPath: [String]

    public init(file: String, line: Int, keyPath: [String] = []) {
        self.keys = []
        self.entries = [:]
        self.file = file
        self.line = line
        self.keyPath = keyPath
    }

    /// The value under `key`; setting a new key appends it to `keys`, setting `nil` removes it.
    public subscript(key: String) -> LocatedValue? {
        get { entries[key] }
        set {
            if let newValue {
                if entries.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if entries.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// The number of keys.
    public var count: Int { keys.count }

    /// Whether the table has no keys.
    public var isEmpty: Bool { keys.isEmpty }

    /// The key–value pairs in file order.
    public var pairs: [(key: String, value: LocatedValue)] {
        keys.compactMap { key in entries[key].map { (key, $0) } }
    }

    /// The dotted key path of the table (`apps.mail`), empty for a document's root.
    public var dottedKey: String { LocatedValue.dotted(keyPath) }

    /// This table with `other` laid over it key by key: tables present in both are merged
    /// the same way, every other value of `other` replaces the one here. Values keep the
    /// file and line they were written on; the merged table keeps this table's header line.
    public func merging(_ other: LocatedTable) -> LocatedTable {
        var merged = self
        for (key, value) in other.pairs {
            if case .table(let mine)? = merged[key]?.value, case .table(let theirs) = value.value {
                var combined = merged[key]!
                combined.value = .table(mine.merging(theirs))
                merged[key] = combined
            } else {
                merged[key] = value
            }
        }
        return merged
    }
}
