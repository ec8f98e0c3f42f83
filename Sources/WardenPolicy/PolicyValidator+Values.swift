import WardenCore

extension PolicyValidator {
    /// A duration greater than zero, such as `"30s"`.
    mutating func positiveDuration(_ value: LocatedValue, example: Duration) -> Duration? {
        let sample = DurationFormat.string(example)
        guard let text = value.string, let duration = DurationFormat.parse(text) else {
            report(value, "key \"\(value.dottedKey)\" must be a duration such as \"\(sample)\".")
            return nil
        }
        guard duration > .zero else {
            report(value, "key \"\(value.dottedKey)\" must be a duration greater than zero, such as \"\(sample)\".")
            return nil
        }
        return duration
    }

    /// A size in bytes greater than zero: a string such as `"512MiB"` or an integer number of bytes.
    mutating func positiveSize(_ value: LocatedValue, example: String) -> Int64? {
        let size: Int64?
        switch value.value {
        case .integer(let bytes): size = Int64(bytes)
        case .string(let text): size = DurationFormat.parseSize(text)
        default: size = nil
        }
        guard let size else {
            report(value, "key \"\(value.dottedKey)\" must be a size such as \"\(example)\".")
            return nil
        }
        guard size > 0 else {
            report(value, "key \"\(value.dottedKey)\" must be a size greater than zero, such as \"\(example)\".")
            return nil
        }
        return size
    }

    /// An amount of available memory: a size (`"512MiB"`) or a percentage of device memory (`"15%"`).
    mutating func threshold(_ value: LocatedValue, example: MemoryThreshold) -> MemoryThreshold? {
        let expected =
            "key \"\(value.dottedKey)\" must be a size such as \"512MiB\" or a percentage of device memory such as \"\(example)\"."
        guard let text = value.string?.trimmingBlanks() else {
            if let bytes = value.integer, bytes >= 0 { return .bytes(Int64(bytes)) }
            report(value, expected)
            return nil
        }
        if text.hasSuffix("%") {
            let number = String(text.dropLast()).trimmingBlanks()
            guard !number.isEmpty, number.first != "+", let percent = Double(number), percent.isFinite,
                !number.lowercased().contains("e")
            else {
                report(value, expected)
                return nil
            }
            guard (0...100).contains(percent) else {
                report(value, "key \"\(value.dottedKey)\" must be a percentage between 0% and 100%, not \"\(text)\".")
                return nil
            }
            return .percent(percent)
        }
        guard let bytes = DurationFormat.parseSize(text) else {
            report(value, expected)
            return nil
        }
        guard bytes >= 0 else {
            report(value, "key \"\(value.dottedKey)\" must not be negative; \"\(text)\" is.")
            return nil
        }
        return .bytes(bytes)
    }

    /// An integer of at least `minimum`.
    mutating func integer(_ value: LocatedValue, atLeast minimum: Int, example: String) -> Int? {
        guard let number = value.integer, number >= minimum else {
            report(value, "key \"\(value.dottedKey)\" must be an integer of at least \(minimum), such as \(example).")
            return nil
        }
        return number
    }

    /// `true` or `false`.
    mutating func bool(_ value: LocatedValue) -> Bool? {
        guard let flag = value.bool else {
            report(value, "key \"\(value.dottedKey)\" must be true or false.")
            return nil
        }
        return flag
    }

    /// A string that is not empty.
    mutating func nonEmptyString(_ value: LocatedValue, example: String) -> String? {
        guard let text = value.string, !text.isEmpty else {
            report(value, "key \"\(value.dottedKey)\" must be a non-empty string such as \"\(example)\".")
            return nil
        }
        return text
    }

    /// An absolute path.
    mutating func absolutePath(_ value: LocatedValue, example: String) -> String? {
        guard let text = value.string, text.hasPrefix("/") else {
            report(value, "key \"\(value.dottedKey)\" must be an absolute path such as \"\(example)\".")
            return nil
        }
        return text
    }

    /// An array whose every element is a string; each bad element is reported at its own line.
    mutating func strings(_ value: LocatedValue, example: String) -> [String]? {
        let expected = "key \"\(value.dottedKey)\" must be an array of strings such as \(example)."
        guard let elements = value.array else {
            report(value, expected)
            return nil
        }
        var result: [String] = []
        var valid = true
        for element in elements {
            if let text = element.string {
                result.append(text)
            } else {
                report(element, expected)
                valid = false
            }
        }
        return valid ? result : nil
    }

    /// One of a fixed set of words.
    mutating func choice(_ value: LocatedValue, among choices: [String]) -> String? {
        guard let text = value.string, choices.contains(text) else {
            var message =
                "key \"\(value.dottedKey)\" must be \(KeySuggestion.list(choices, quoted: true, conjunction: "or"))"
            if let text = value.string, let close = KeySuggestion.closest(to: text, among: choices) {
                message += "; did you mean \"\(close)\"?"
            } else {
                message += "."
            }
            report(value, message)
            return nil
        }
        return text
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    func trimmingBlanks() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
