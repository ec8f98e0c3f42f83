/// A TOML value that knows the file and line it was written on and the key it was written under.
///
/// Array elements carry the line on which each element starts, so that a multi-line array
/// (such as a scenario's `steps`) can name the line of every element.
public struct LocatedValue: Sendable, Equatable {
    /// The value itself.
    public enum Kind: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case float(Double)
        case bool(Bool)
        /// A TOML date, time or date-time, kept as written.
        case date(String)
        case array([LocatedValue])
        case table(LocatedTable)
    }

    public var value: Kind
    /// The file the value was read from, as it was named when the document was loaded.
    public var file: String
    /// The 1-based line on which the value's key (or, for an array element, the element) is written.
    public var line: Int
    /// The keys leading from the document's root to this value; array elements share their array's path.
    public var keyPath: [String]

    public init(value: Kind, file: String, line: Int, keyPath: [String]) {
        self.value = value
        self.file = file
        self.line = line
        self.keyPath = keyPath
    }

    /// The key path written as TOML writes it: `apps.mail.fetch_interval`, quoting keys that need it.
    public var dottedKey: String { LocatedValue.dotted(keyPath) }

    /// The text, if the value is a string.
    public var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    /// The number, if the value is an integer.
    public var integer: Int? {
        if case .integer(let number) = value { return number }
        return nil
    }

    /// The number, if the value is a float or an integer.
    public var float: Double? {
        switch value {
        case .float(let number): return number
        case .integer(let number): return Double(number)
        default: return nil
        }
    }

    /// The truth value, if the value is a boolean.
    public var bool: Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }

    /// The elements, if the value is an array.
    public var array: [LocatedValue]? {
        if case .array(let elements) = value { return elements }
        return nil
    }

    /// The table, if the value is a table.
    public var table: LocatedTable? {
        if case .table(let table) = value { return table }
        return nil
    }

    /// What kind of value this is, with its article, for messages: "a string", "an integer", "a table".
    public var typeDescription: String {
        switch value {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a floating-point number"
        case .bool: "a boolean"
        case .date: "a date"
        case .array: "an array"
        case .table: "a table"
        }
    }

    /// Writes a key path as TOML does, quoting the keys that are not bare keys.
    public static func dotted(_ keyPath: [String]) -> String {
        keyPath.map { key in
            let isBare =
                !key.isEmpty
                && key.unicodeScalars.allSatisfy { scalar in
                    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                        || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_"
                }
            if isBare { return key }
            var quoted = "\""
            for scalar in key.unicodeScalars {
                switch scalar {
                case "\"": quoted += "\\\""
                case "\\": quoted += "\\\\"
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                default:
                    if scalar.value < 0x20 || scalar.value == 0x7F {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        quoted.unicodeScalars.append(scalar)
                    }
                }
            }
            return quoted + "\""
        }
        .joined(separator: ".")
    }
}
