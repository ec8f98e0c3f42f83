/// A table of a `TOMLDocument`: its keys in the order the text first writes them, and how the
/// table came to be, which decides whether the text may still add to it.
struct TOMLTable: Sendable {
    /// How a table was made.
    enum Origin: Sendable, Equatable {
        /// The document's root.
        case root
        /// Named on the way to another table by a header (`a` in `[a.b]`); a header of its own may
        /// still define it once.
        case implicit
        /// Defined by its header, `[a]`.
        case header
        /// Made by dotted keys (`a.b = 1` makes `a`); more dotted keys may add to it, a header may not.
        case dotted
        /// Written whole as an inline table, `{ b = 1 }`; nothing may add to it.
        case inline
        /// One element of an array of tables, begun by `[[a]]`.
        case arrayElement
    }

    /// How the table was made; an implicit table becomes a header or a dotted one when defined.
    var origin: Origin
    /// The line on which the table is first named.
    var line: Int
    /// The line of the header, key or inline table that defined it (for an implicit table, the
    /// line that first named it).
    var definedLine: Int
    /// The keys, in the order the text first writes them.
    private(set) var keys: [String] = []
    private var entries: [String: TOMLEntry] = [:]

    init(origin: Origin, line: Int) {
        self.origin = origin
        self.line = line
        self.definedLine = line
    }

    /// The entry under `key`; setting a new key appends it to `keys`.
    subscript(key: String) -> TOMLEntry? {
        get { entries[key] }
        set {
            guard let newValue else {
                if entries.removeValue(forKey: key) != nil { keys.removeAll { $0 == key } }
                return
            }
            if entries.updateValue(newValue, forKey: key) == nil { keys.append(key) }
        }
    }
}
