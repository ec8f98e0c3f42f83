extension TOMLReader {
    /// An integer (decimal, or `0x` hexadecimal, `0o` octal, `0b` binary) or a float (a
    /// fraction, an exponent, `inf` or `nan`), with underscores allowed between digits.
    mutating func readNumber() throws(TOMLError) -> TOMLValue {
        let start = mark
        while let byte = peek(), !Self.endsValue(byte), !Self.isControl(byte) { position += 1 }
        let token = bytes[start.offset..<position]
        let text = String(decoding: token, as: UTF8.self)
        var scanner = NumberScanner(bytes: token)
        let negative = scanner.take(UInt8(ascii: "-"))
        let signed = negative || scanner.take(UInt8(ascii: "+"))
        let body = String(decoding: scanner.rest, as: UTF8.self)
        if body == "inf" { return .float(negative ? -.infinity : .infinity) }
        if body == "nan" { return .float(.nan) }

        let prefixes: [(prefix: String, radix: Int, name: String)] = [
            ("0x", 16, "hexadecimal"), ("0o", 8, "octal"), ("0b", 2, "binary"),
        ]
        if let base = prefixes.first(where: { body.hasPrefix($0.prefix) }) {
            let (radix, name) = (base.radix, base.name)
            guard !signed else {
                throw error(
                    "the number \(text) has a sign, which a hexadecimal, octal or binary number cannot have", at: start)
            }
            scanner.position += 2
            let digits = scanner.digits(radix: radix)
            guard scanner.isAtEnd, !digits.isEmpty else {
                throw error("the number \(text) is not a valid \(name) integer", at: start)
            }
            try checkUnderscores(digits, text: text, at: start)
            var value = 0
            for byte in digits where byte != UInt8(ascii: "_") {
                let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
                let (sum, overflowSum) = shifted.addingReportingOverflow(Int(Self.hexValue(byte)!))
                guard !overflow, !overflowSum else { throw tooLarge(text, at: start) }
                value = sum
            }
            return .integer(value)
        }

        let integerPart = scanner.digits(radix: 10)
        guard !integerPart.isEmpty else { throw notANumber(text, at: start) }
        try checkUnderscores(integerPart, text: text, at: start)
        if integerPart.count > 1, integerPart.first == UInt8(ascii: "0") {
            throw error("the number \(text) has a leading zero, which TOML does not allow", at: start)
        }
        var isFloat = false
        if scanner.take(UInt8(ascii: ".")) {
            isFloat = true
            let fraction = scanner.digits(radix: 10)
            guard !fraction.isEmpty else {
                throw error("the number \(text) needs digits on both sides of its decimal point", at: start)
            }
            try checkUnderscores(fraction, text: text, at: start)
        }
        if scanner.take(UInt8(ascii: "e")) || scanner.take(UInt8(ascii: "E")) {
            isFloat = true
            _ = scanner.take(UInt8(ascii: "+")) || scanner.take(UInt8(ascii: "-"))
            let exponent = scanner.digits(radix: 10)
            guard !exponent.isEmpty else { throw error("the number \(text) needs digits in its exponent", at: start) }
            try checkUnderscores(exponent, text: text, at: start)
        }
        guard scanner.isAtEnd else { throw notANumber(text, at: start) }

        let plain = String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        if isFloat {
            guard let value = Double(plain), value.isFinite else {
                throw error("the number \(text) is too large for a 64-bit floating-point number", at: start)
            }
            return .float(value)
        }
        guard let value = Int(plain) else { throw tooLarge(text, at: start) }
        return .integer(value)
    }

    /// Refuses an underscore that is not between two digits.
    private func checkUnderscores(_ digits: ArraySlice<UInt8>, text: String, at start: Mark) throws(TOMLError) {
        let underscore = UInt8(ascii: "_")
        guard digits.first != underscore, digits.last != underscore,
            !zip(digits, digits.dropFirst()).contains(where: { $0 == underscore && $1 == underscore })
        else {
            throw error("the number \(text) has an underscore that is not between two digits", at: start)
        }
    }

    private func notANumber(_ text: String, at start: Mark) -> TOMLError {
        error("the value \(text) is not a valid number, date or time", at: start)
    }

    private func tooLarge(_ text: String, at start: Mark) -> TOMLError {
        error(
            "the integer \(text) does not fit in 64 bits (from -9223372036854775808 to 9223372036854775807)",
            at: start)
    }
}

/// Steps through the bytes of one number.
private struct NumberScanner {
    var bytes: ArraySlice<UInt8>
    var position: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position == bytes.endIndex }

    var rest: ArraySlice<UInt8> { bytes[position...] }

    /// Consumes `byte` when it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.endIndex, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// The digits of `radix` and underscores from here on.
    mutating func digits(radix: Int) -> ArraySlice<UInt8> {
        let start = position
        while position < bytes.endIndex {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "_") || TOMLReader.hexValue(byte).map({ Int($0) < radix }) == true else { break }
            position += 1
        }
        return bytes[start..<position]
    }
}
