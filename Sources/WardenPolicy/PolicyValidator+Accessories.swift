import WardenCore

extension PolicyValidator {
    /// The keys of one accessory match.
    static let accessoryKeys = ["subsystem", "vendor", "product", "tag"]

    /// `accessories`: an array of inline tables, each naming at least one of `subsystem`,
    /// `vendor`, `product` (hex ids such as "0x1d6b") and `tag` (rule 14).
    mutating func accessories(_ value: LocatedValue) -> [AccessoryMatch] {
        let example = "[{ subsystem = \"usb\", vendor = \"0x1234\", product = \"0x5678\" }, { tag = \"scanner\" }]"
        guard let elements = value.array else {
            report(value, "key \"\(value.dottedKey)\" must be an array of accessory matches such as \(example).")
            return []
        }
        var matches: [AccessoryMatch] = []
        for element in elements {
            guard let table = element.table else {
                report(
                    element,
                    "key \"\(value.dottedKey)\" must hold accessory matches as tables such as { subsystem = \"usb\", vendor = \"0x1234\" }, not \(element.typeDescription)."
                )
                continue
            }
            var match = AccessoryMatch()
            var valid = true
            for (key, entry) in table.pairs {
                guard Self.accessoryKeys.contains(key) else {
                    reportUnknown(entry, known: Self.accessoryKeys, place: "an accessory match")
                    valid = false
                    continue
                }
                guard let text = entry.string, !text.isEmpty else {
                    report(entry, "key \"\(entry.dottedKey)\" must be a string that is not empty, such as \"usb\".")
                    valid = false
                    continue
                }
                switch key {
                case "subsystem": match.subsystem = text
                case "tag":
                    guard !text.contains(":") else {
                        report(
                            entry, "key \"\(entry.dottedKey)\" must be one udev tag without \":\", such as \"scanner\"."
                        )
                        valid = false
                        continue
                    }
                    match.tag = text
                default:
                    guard Self.isHexID(text) else {
                        report(
                            entry,
                            "key \"\(entry.dottedKey)\" must be a \(key) id of four hex digits such as \"0x1d6b\", not \"\(text)\"."
                        )
                        valid = false
                        continue
                    }
                    if key == "vendor" { match.vendor = text } else { match.product = text }
                }
            }
            if table.pairs.isEmpty {
                report(
                    element,
                    "key \"\(value.dottedKey)\" holds an empty accessory match, which would match nothing; name at least one of \(KeySuggestion.list(Self.accessoryKeys, quoted: true, conjunction: "or"))."
                )
                valid = false
            }
            if valid { matches.append(match) }
        }
        return matches
    }

    /// Whether `text` is a USB-style id: four hex digits, with or without `0x`.
    static func isHexID(_ text: String) -> Bool {
        let digits = text.lowercased().hasPrefix("0x") ? text.dropFirst(2) : Substring(text)
        return digits.count == 4 && digits.allSatisfy(\.isHexDigit)
    }
}
