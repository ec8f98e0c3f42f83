/// Reading a document value by value, without building its tree: the caller asks for what it
/// expects next (a string, an integer, the members of an object, …) and the reader checks the
/// syntax as it goes, exactly as `readDocument()` does. The client reads bulk answers (the app
/// list) this way.
extension JSONReader {
    /// Why a value could not be read: the text is not JSON (`invalid`, the whole sentence), or it
    /// is JSON but not what the caller expected (`mismatch`, a phrase such as "a string found
    /// where an integer that fits Int64 was expected", for the caller to place).
    public enum Failure: Error {
        case invalid(LifecycleError)
        case mismatch(String)
    }

    /// Checks that the document is not empty; call it before reading the first value.
    public mutating func beginDocument() throws(Failure) {
        skipWhitespace()
        guard offset < bytes.count else {
            throw .invalid(LifecycleError(.invalid, "\(subject) is empty; it must be JSON."))
        }
    }

    /// Checks that only whitespace follows the value read.
    public mutating func endDocument() throws(Failure) {
        skipWhitespace()
        if offset < bytes.count {
            throw .invalid(error("unexpected \(describe(bytes[offset])) after the end of the JSON value"))
        }
    }

    /// Reads an array, calling `element` with each element's index while the reader is at that
    /// element; `element` must read it.
    public mutating func nextElements(_ element: (Int, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "["), "an array")
        do throws(LifecycleError) {
            guard try open() else { return }
        } catch {
            throw .invalid(error)
        }
        var index = 0
        repeat {
            try element(index, &self)
            index += 1
        } while try syntax { (reader: inout JSONReader) throws(LifecycleError) in try reader.next(in: .array) }
    }

    /// Reads an array whose elements `element` reads, one by one, into an array.
    public mutating func nextArray<Element>(of element: (inout JSONReader) throws(Failure) -> Element)
        throws(Failure) -> [Element]
    {
        var elements: [Element] = []
        try nextElements { (_, reader: inout JSONReader) throws(Failure) in elements.append(try element(&reader)) }
        return elements
    }

    /// Reads an object, calling `member` with each key while the reader is at its value;
    /// `member` must read the value (`skipValue()` for a key it does not know). A key that
    /// appears twice is refused, as `readDocument()` refuses it.
    public mutating func nextObject(_ member: (String, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "{"), "an object")
        var keys = KeyLog()
        do throws(LifecycleError) {
            guard try open() else { return }
        } catch {
            throw .invalid(error)
        }
        repeat {
            let key = try syntax { (reader: inout JSONReader) throws(LifecycleError) in
                try reader.readKey(into: &keys)
            }
            try member(key, &self)
        } while try syntax { (reader: inout JSONReader) throws(LifecycleError) in try reader.next(in: .object) }
    }

    /// Reads a string.
    public mutating func nextString() throws(Failure) -> String {
        try expect(UInt8(ascii: "\""), "a string")
        return try syntax { (reader: inout JSONReader) throws(LifecycleError) in try reader.readString() }
    }

    /// Reads a number that is an integer of the given type.
    public mutating func nextInteger<Integer: FixedWidthInteger>(_: Integer.Type = Integer.self) throws(Failure)
        -> Integer
    {
        let expected = "an integer that fits \(Integer.self)"
        skipWhitespace()
        guard let byte = peek(), byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        else { throw mismatch(expected) }
        let text = try syntax { (reader: inout JSONReader) throws(LifecycleError) in try reader.readNumber() }
        guard let number = Integer(text) else { throw .mismatch("a number found where \(expected) was expected") }
        return number
    }

    /// Reads `true` or `false`.
    public mutating func nextBool() throws(Failure) -> Bool {
        skipWhitespace()
        let value: Bool
        switch peek() {
        case UInt8(ascii: "t"): value = true
        case UInt8(ascii: "f"): value = false
        default: throw mismatch("true or false")
        }
        try syntax { (reader: inout JSONReader) throws(LifecycleError) in
            try reader.readLiteral(value ? "true" : "false")
        }
        return value
    }

    /// Reads `null` if it comes next: true when it did (as `decodeIfPresent` reads a member that
    /// is `null`), false when another value follows, which is left to read.
    public mutating func skipNull() throws(Failure) -> Bool {
        skipWhitespace()
        guard peek() == UInt8(ascii: "n") else { return false }
        try syntax { (reader: inout JSONReader) throws(LifecycleError) in try reader.readLiteral("null") }
        return true
    }

    /// Reads a value of any kind and forgets it.
    public mutating func skipValue() throws(Failure) {
        _ = try syntax { (reader: inout JSONReader) throws(LifecycleError) in try reader.readValue() }
    }

    /// Checks that the next value starts with `opener`; otherwise a mismatch naming what it is,
    /// or the syntax error when it is no value at all.
    private mutating func expect(_ opener: UInt8, _ expected: String) throws(Failure) {
        skipWhitespace()
        guard peek() != opener else { return }
        throw mismatch(expected)
    }

    /// "a string found where true or false was expected", or the syntax error when what comes
    /// next is not a valid value (as `readDocument()` would have named it).
    private mutating func mismatch(_ expected: String) -> Failure {
        skipWhitespace()
        let kind = peek().flatMap(Self.kind(startingWith:))
        do throws(LifecycleError) {
            _ = try readValue()
        } catch {
            return .invalid(error)
        }
        guard let kind else { preconditionFailure("readValue() read a value that starts with no value's byte") }
        return .mismatch("\(kind) found where \(expected) was expected")
    }

    /// The kind of value that starts with `byte`, as `Value.kindDescription` names it; nil when
    /// no value starts with it.
    private static func kind(startingWith byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): "a number"
        default: nil
        }
    }

    /// Runs a step of the syntax, its error an `invalid` failure.
    private mutating func syntax<Result>(_ step: (inout JSONReader) throws(LifecycleError) -> Result) throws(Failure)
        -> Result
    {
        do {
            return try step(&self)
        } catch {
            throw .invalid(error)
        }
    }
}
