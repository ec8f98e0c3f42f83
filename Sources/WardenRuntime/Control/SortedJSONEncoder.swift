/// JSON text with every object's keys sorted (by their UTF-8 bytes) and slashes left as they
/// are: what Foundation's `JSONEncoder` writes with `[.sortedKeys, .withoutEscapingSlashes]`,
/// for the control API's answers, at a fraction of its cost.
///
/// Foundation's encoder spends most of an app list's time on generic boxing and on checks for
/// types the API never sends (dates, data, URLs, decimals). This one builds a small tree of
/// reference-counted nodes and writes it once. Integers, booleans, strings, nil, arrays,
/// dictionaries with string keys and nested `Encodable` values are supported; a floating-point
/// value is written with Swift's shortest round-trip form, and a non-finite one is refused.
/// A key encoded twice in one object is written twice (synthesized `Encodable` never does that).
enum SortedJSONEncoder {
    /// A value that cannot be written as JSON (a non-finite number), in a sentence.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// JSON text encoded earlier, written as it is where a value of this type is encoded: a
    /// writer that keeps parts of a large value encoded passes them in its place.
    struct Fragment: Encodable, Sendable {
        let bytes: [UInt8]

        /// Only this encoder writes a fragment; any other writes its text as a string.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The JSON text of `value` as UTF-8 bytes.
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = try Node.of(value)
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        root.write(into: &output)
        return output
    }

    /// One JSON value.
    enum Node {
        case null
        case bool(Bool)
        case signed(Int64)
        case unsigned(UInt64)
        case number(String)
        case string(String)
        case array(ArrayNode)
        case object(ObjectNode)
        case fragment([UInt8])

        /// The node of `value`: its own for the kinds JSON has, else what its `encode(to:)` builds.
        static func of<T: Encodable>(_ value: T) throws -> Node {
            // Comparing types first is far cheaper than trying a cast for each.
            let type = T.self
            if type == String.self { return .string(value as! String) }
            if type == Int.self { return .signed(Int64(value as! Int)) }
            if type == Int64.self { return .signed(value as! Int64) }
            if type == Int32.self { return .signed(Int64(value as! Int32)) }
            if type == Bool.self { return .bool(value as! Bool) }
            if type == Fragment.self { return .fragment((value as! Fragment).bytes) }
            let encoder = TreeEncoder()
            try value.encode(to: encoder)
            return encoder.node ?? .object(ObjectNode())
        }

        static func number(_ value: Double) throws -> Node {
            guard value.isFinite else {
                throw Failure(description: "The number \(value) cannot be written as JSON.")
            }
            return .number(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)")
        }

        func write(into output: inout [UInt8]) {
            switch self {
            case .null: output.append(contentsOf: "null".utf8)
            case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
            case .signed(let number): output.append(contentsOf: String(number).utf8)
            case .unsigned(let number): output.append(contentsOf: String(number).utf8)
            case .number(let text): output.append(contentsOf: text.utf8)
            case .string(let text): Self.writeString(text, into: &output)
            case .fragment(let bytes): output.append(contentsOf: bytes)
            case .array(let array):
                output.append(UInt8(ascii: "["))
                for (index, element) in array.elements.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    element.write(into: &output)
                }
                output.append(UInt8(ascii: "]"))
            case .object(let object):
                output.append(UInt8(ascii: "{"))
                let fields = object.fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                for (index, field) in fields.enumerated() {
                    if index > 0 { output.append(UInt8(ascii: ",")) }
                    Self.writeString(field.key, into: &output)
                    output.append(UInt8(ascii: ":"))
                    field.value.write(into: &output)
                }
                output.append(UInt8(ascii: "}"))
            }
        }

        /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`.
        private static func writeString(_ text: String, into output: inout [UInt8]) {
            output.append(UInt8(ascii: "\""))
            // Most strings need no escape: copied whole.
            if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                output.append(contentsOf: text.utf8)
                output.append(UInt8(ascii: "\""))
                return
            }
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case 0x08: output.append(contentsOf: #"\b"#.utf8)
                case 0x09: output.append(contentsOf: #"\t"#.utf8)
                case 0x0A: output.append(contentsOf: #"\n"#.utf8)
                case 0x0C: output.append(contentsOf: #"\f"#.utf8)
                case 0x0D: output.append(contentsOf: #"\r"#.utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: #"\u00"#.utf8)
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0xF)])
                default: output.append(byte)
                }
            }
            output.append(UInt8(ascii: "\""))
        }
    }

    final class ArrayNode {
        var elements: [Node] = []
    }

    final class ObjectNode {
        var fields: [(key: String, value: Node)] = []
    }

    /// The `Encoder` handed to a value's `encode(to:)`: it records the one container or value
    /// the value asks for.
    final class TreeEncoder: Encoder {
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        var node: Node?

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object(let object) = node { return KeyedEncodingContainer(KeyedContainer(object: object)) }
            let object = ObjectNode()
            node = .object(object)
            return KeyedEncodingContainer(KeyedContainer(object: object))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array(let array) = node { return UnkeyedContainer(array: array) }
            let array = ArrayNode()
            node = .array(array)
            return UnkeyedContainer(array: array)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(encoder: self)
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let object: ObjectNode
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) { object.fields.append((key.stringValue, .null)) }
        mutating func encode(_ value: Bool, forKey key: Key) { object.fields.append((key.stringValue, .bool(value))) }
        mutating func encode(_ value: String, forKey key: Key) {
            object.fields.append((key.stringValue, .string(value)))
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            object.fields.append((key.stringValue, try .number(value)))
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            object.fields.append((key.stringValue, try .number(Double(value))))
        }
        mutating func encode(_ value: Int, forKey key: Key) { append(Int64(value), key) }
        mutating func encode(_ value: Int8, forKey key: Key) { append(Int64(value), key) }
        mutating func encode(_ value: Int16, forKey key: Key) { append(Int64(value), key) }
        mutating func encode(_ value: Int32, forKey key: Key) { append(Int64(value), key) }
        mutating func encode(_ value: Int64, forKey key: Key) { append(value, key) }
        mutating func encode(_ value: UInt, forKey key: Key) { appendUnsigned(UInt64(value), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) { appendUnsigned(UInt64(value), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) { appendUnsigned(UInt64(value), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) { appendUnsigned(UInt64(value), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) { appendUnsigned(value, key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            object.fields.append((key.stringValue, try Node.of(value)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let nested = ObjectNode()
            object.fields.append((key.stringValue, .object(nested)))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: nested))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayNode()
            object.fields.append((key.stringValue, .array(nested)))
            return UnkeyedContainer(array: nested)
        }

        mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

        private func superEncoder(named name: String) -> any Encoder {
            let nested = ObjectNode()
            object.fields.append((name, .object(nested)))
            let encoder = TreeEncoder()
            encoder.node = .object(nested)
            return encoder
        }

        private func append(_ value: Int64, _ key: Key) { object.fields.append((key.stringValue, .signed(value))) }
        private func appendUnsigned(_ value: UInt64, _ key: Key) {
            object.fields.append((key.stringValue, .unsigned(value)))
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let array: ArrayNode
        var codingPath: [any CodingKey] { [] }
        var count: Int { array.elements.count }

        mutating func encodeNil() { array.elements.append(.null) }
        mutating func encode(_ value: Bool) { array.elements.append(.bool(value)) }
        mutating func encode(_ value: String) { array.elements.append(.string(value)) }
        mutating func encode(_ value: Double) throws { array.elements.append(try .number(value)) }
        mutating func encode(_ value: Float) throws { array.elements.append(try .number(Double(value))) }
        mutating func encode(_ value: Int) { array.elements.append(.signed(Int64(value))) }
        mutating func encode(_ value: Int8) { array.elements.append(.signed(Int64(value))) }
        mutating func encode(_ value: Int16) { array.elements.append(.signed(Int64(value))) }
        mutating func encode(_ value: Int32) { array.elements.append(.signed(Int64(value))) }
        mutating func encode(_ value: Int64) { array.elements.append(.signed(value)) }
        mutating func encode(_ value: UInt) { array.elements.append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt8) { array.elements.append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt16) { array.elements.append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt32) { array.elements.append(.unsigned(UInt64(value))) }
        mutating func encode(_ value: UInt64) { array.elements.append(.unsigned(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { array.elements.append(try Node.of(value)) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let nested = ObjectNode()
            array.elements.append(.object(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(object: nested))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayNode()
            array.elements.append(.array(nested))
            return UnkeyedContainer(array: nested)
        }

        mutating func superEncoder() -> any Encoder {
            let nested = ObjectNode()
            array.elements.append(.object(nested))
            let encoder = TreeEncoder()
            encoder.node = .object(nested)
            return encoder
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: TreeEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() { encoder.node = .null }
        mutating func encode(_ value: Bool) { encoder.node = .bool(value) }
        mutating func encode(_ value: String) { encoder.node = .string(value) }
        mutating func encode(_ value: Double) throws { encoder.node = try .number(value) }
        mutating func encode(_ value: Float) throws { encoder.node = try .number(Double(value)) }
        mutating func encode(_ value: Int) { encoder.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int8) { encoder.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int16) { encoder.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int32) { encoder.node = .signed(Int64(value)) }
        mutating func encode(_ value: Int64) { encoder.node = .signed(value) }
        mutating func encode(_ value: UInt) { encoder.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt8) { encoder.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt16) { encoder.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt32) { encoder.node = .unsigned(UInt64(value)) }
        mutating func encode(_ value: UInt64) { encoder.node = .unsigned(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { encoder.node = try Node.of(value) }
    }
}
