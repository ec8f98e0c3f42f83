/// A value of a `TOMLDocument`.
enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    /// An offset or local date-time, a local date or a local time.
    case dateTime(TOMLDateTime)
    /// An array written as a value, `[1, 2]`; each element with the line it starts on.
    case array([TOMLEntry])
    /// A table, by its index in the document's `tables`.
    case table(Int)
    /// An array of tables (`[[a]]`), by the index of each element's table in the document's
    /// `tables`; each element's line is that of its header.
    case tableArray([Int])

    /// What kind of value this is, with its article, for messages: "a string", "an array of tables".
    var kindDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a floating-point number"
        case .bool: "a boolean"
        case .dateTime(let dateTime): dateTime.kindDescription
        case .array: "an array"
        case .table: "a table"
        case .tableArray: "an array of tables"
        }
    }
}
