/// A value SQLite stores: what a statement binds to a parameter and reads from a column.
public enum SQLiteValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

extension SQLiteValue {
    /// `value` as an integer.
    public init(_ value: Int) {
        self = .integer(Int64(value))
    }
}
