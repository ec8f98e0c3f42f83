/// Reading a document value by value, without building its tree: the caller asks for what it
/// expects next (a string, an integer, the members of an object, …) and the reader checks the
/// syntax of what it reads as `readDocument()` does. The client reads bulk answers (the app list)
/// this way.
extension JSONReader {
    /// Why a value could not be read: the text is not JSON (`invalid`, the whole sentence), or it
    /// is JSON but not what the caller expected (`mismatch`, a phrase such as "a string found
    /// where an integer that fits Int64 was expected", for the caller to place). A mismatch has
    /// read the value it names (to make sure it is JSON), so the reader is after it.
    public enum Failure: Error {
        case invalid(JSONError)
        case mismatch(String)
    }

    /// Checks that the document is not empty; call it before reading the first value.
    public mutating func beginDocument() throws(Failure) {
        try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.checkStart() }
    }

    /// Checks that only whitespace follows the value read.
    public mutating func endDocument() throws(Failure) {
        try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.checkEnd() }
    }

    /// Reads an array, calling `element` with each element's index while the reader is at that
    /// element; `element` must read it (reading nothing is a mistake of the caller, which traps),
    /// and a mismatch it throws is placed in the element ("element 3: …").
    public mutating func nextElements(_ element: (Int, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "["), "an array")
        guard try syntax({ (reader: inout JSONReader) throws(JSONError) in try reader.open() }) else { return }
        var index = 0
        repeat {
            try read("element \(index)") { (reader: inout JSONReader) throws(Failure) in try element(index, &reader) }
            index += 1
        } while try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.next(in: .array) }
    }

    /// Reads an array whose elements `element` reads, one by one, into an array. Inlined, as
    /// `nextInteger` is, so that the array's type is known where it is read.
    @inlinable
    public mutating func nextArray<Element>(of element: (inout JSONReader) throws(Failure) -> Element)
        throws(Failure) -> [Element]
    {
        var elements: [Element] = []
        try nextElements { (_, reader: inout JSONReader) throws(Failure) in elements.append(try element(&reader)) }
        return elements
    }

    /// Reads an object, calling `member` with each key while the reader is at its value;
    /// `member` must read the value (`skipValue()` for a key it does not know; `switch key`
    /// matches the keys it knows as string literals), and a mismatch it throws is placed in the
    /// member ("the member \"pids\": …"). A key that appears twice is refused, as
    /// `readDocument()` refuses it.
    public mutating func nextObject(_ member: (Key, inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        try expect(UInt8(ascii: "{"), "an object")
        var keys = KeyLog(base: keyStack.count)
        defer { keys.forget(from: &keyStack) }
        guard try syntax({ (reader: inout JSONReader) throws(JSONError) in try reader.open() }) else { return }
        repeat {
            let key = try syntax { (reader: inout JSONReader) throws(JSONError) in
                try reader.readKey(into: &keys)
            }
            try read("the member \"\(key)\"") { (reader: inout JSONReader) throws(Failure) in try member(key, &reader) }
        } while try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.next(in: .object) }
    }

    /// Reads a string.
    public mutating func nextString() throws(Failure) -> String {
        try expect(UInt8(ascii: "\""), "a string")
        return try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.readString() }
    }

    /// Reads a number that is an integer of the given type.
    ///
    /// Inlined, so that the type is known where the integer is read: a read of a generic integer
    /// asked the runtime for the metadata of `Integer?` each time, three times an app in a
    /// thousand apps' list.
    @inlinable
    public mutating func nextInteger<Integer: FixedWidthInteger>(_: Integer.Type = Integer.self) throws(Failure)
        -> Integer
    {
        // Named only for a mismatch: a type's name is looked up at run time.
        let value: Integer? =
            switch try nextNumber({ "an integer that fits \(Integer.self)" }) {
            case .digits(let digits): Integer(exactly: digits)
            case .text(let text): Integer(text)
            }
        guard let value else {
            throw .mismatch("a number found where an integer that fits \(Integer.self) was expected")
        }
        return value
    }

    /// A number as `nextNumber` reads it: up to 18 digits and nothing else, added up; any other
    /// number as its text, for the caller's type to read.
    @usableFromInline
    enum Number {
        case digits(Int64)
        case text(String)
    }

    /// Reads a number for `nextInteger`; what is not a number is a mismatch with `expected`.
    @usableFromInline
    mutating func nextNumber(_ expected: () -> String) throws(Failure) -> Number {
        skipWhitespace()
        guard let byte = peek(), byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        else { throw mismatch(expected()) }
        let start = offset
        try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.skipNumber() }
        let number = bytes[start..<offset]
        let decimal = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard number.count <= 18, number.allSatisfy({ decimal.contains($0) }) else {
            return .text(String(decoding: number, as: UTF8.self))
        }
        return .digits(number.reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) })
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
        try syntax { (reader: inout JSONReader) throws(JSONError) in
            try reader.readLiteral(value ? "true" : "false")
        }
        return value
    }

    /// Reads `null` if it comes next: true when it did (as `decodeIfPresent` reads a member that
    /// is `null`), false when another value follows, which is left to read.
    public mutating func skipNull() throws(Failure) -> Bool {
        skipWhitespace()
        guard peek() == UInt8(ascii: "n") else { return false }
        try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.readLiteral("null") }
        return true
    }

    /// Reads a value of any kind and forgets it.
    public mutating func skipValue() throws(Failure) {
        _ = try syntax { (reader: inout JSONReader) throws(JSONError) in try reader.readValue() }
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
        do throws(JSONError) {
            return .mismatch("\(try readValue().kindDescription) found where \(expected) was expected")
        } catch {
            return .invalid(error)
        }
    }

    /// Runs the caller's read of one value, placing a mismatch it throws in `place` ("element 3:
    /// …", "the member \"pids\": …"). A read that read nothing is the caller's mistake, which traps.
    private mutating func read(_ place: @autoclosure () -> String, _ value: (inout JSONReader) throws(Failure) -> Void)
        throws(Failure)
    {
        let start = offset
        do throws(Failure) {
            try value(&self)
        } catch {
            guard case .mismatch(let problem) = error else { throw error }
            throw .mismatch("\(place()): \(problem)")
        }
        precondition(offset > start, "A pulling read of \(place()) read nothing.")
    }

    /// Runs a step of the syntax, its error an `invalid` failure.
    private mutating func syntax<Result>(_ step: (inout JSONReader) throws(JSONError) -> Result) throws(Failure)
        -> Result
    {
        do {
            return try step(&self)
        } catch {
            throw .invalid(error)
        }
    }
}
