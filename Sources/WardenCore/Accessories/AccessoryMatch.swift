import WardenJSON

/// One accessory an app handles (`accessories` in `[apps.NAME]`, rule 14): a device whose udev
/// properties match every field given. At least one field is given (the policy checks it).
public struct AccessoryMatch: Sendable, Hashable, Codable {
    /// The device's subsystem (`SUBSYSTEM`), such as `usb`, `tty`, `input`, `hidraw`.
    public var subsystem: String?
    /// The vendor id (`ID_VENDOR_ID`, or the first part of the kernel's `PRODUCT`,
    /// `vendor/product/release`), four hex digits, with or without `0x`.
    public var vendor: String?
    /// The product id (`ID_MODEL_ID`, or the second part of `PRODUCT`), four hex digits, with or
    /// without `0x`.
    public var product: String?
    /// A udev tag the device carries (one of the names in `TAGS` or `CURRENT_TAGS`).
    public var tag: String?

    public init(subsystem: String? = nil, vendor: String? = nil, product: String? = nil, tag: String? = nil) {
        self.subsystem = subsystem
        self.vendor = vendor
        self.product = product
        self.tag = tag
    }

    /// Whether a device with these udev properties is this accessory: every field given
    /// matches (hex ids compared as numbers), none given matches nothing.
    public func matches(_ properties: [String: String]) -> Bool {
        guard subsystem != nil || vendor != nil || product != nil || tag != nil else { return false }
        if let subsystem, properties["SUBSYSTEM"] != subsystem { return false }
        let kernelIDs = properties["PRODUCT"]?.split(separator: "/").map(String.init) ?? []
        if let vendor, Self.hexID(properties["ID_VENDOR_ID"] ?? kernelIDs.first) != Self.hexID(vendor) {
            return false
        }
        if let product, Self.hexID(properties["ID_MODEL_ID"] ?? kernelIDs.dropFirst().first) != Self.hexID(product) {
            return false
        }
        if let tag {
            let tags = [properties["TAGS"], properties["CURRENT_TAGS"]].compactMap { $0 }
                .flatMap { $0.split(separator: ":") }
            if !tags.contains(Substring(tag)) { return false }
        }
        return true
    }

    /// A hex id as a number, with or without `0x` and leading zeros (the kernel's `PRODUCT`
    /// writes `4d8` where udev writes `04d8`); nil for none or one that is not hex.
    static func hexID(_ text: String?) -> Int? {
        guard let lower = text?.lowercased() else { return nil }
        return Int(lower.hasPrefix("0x") ? String(lower.dropFirst(2)) : lower, radix: 16)
    }
}

/// Whether a device appeared or went away (udev's `ACTION`); `change` and the others udev
/// sends are delivered as they are named.
public enum AccessoryAction: String, Sendable, Hashable, CaseIterable, Codable {
    case add
    case remove
    case change
    case bind
    case unbind
    case move
    case online
    case offline
}

extension AccessoryMatch {
    /// Udev properties as one JSON object with its keys sorted, as a scenario step and the
    /// journal write them (`accessory add {"SUBSYSTEM":"usb"}`).
    public static func propertiesText(_ properties: [String: String]) -> String {
        let fields = properties.keys.sorted().map { "\(jsonString($0)):\(jsonString(properties[$0] ?? ""))" }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A JSON string literal.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension AccessoryMatch {
    /// Parses udev properties written as one JSON object of strings (`propertiesText`);
    /// throws `LifecycleError(.invalid, …)` with a sentence naming what is wrong.
    public static func parseProperties(_ json: String) throws(LifecycleError) -> [String: String] {
        var reader = JSONReader(bytes: Array(json.utf8), subject: "The accessory properties", noun: "the properties")
        let value: JSONReader.Value
        do throws(JSONError) {
            value = try reader.readDocument()
        } catch {
            throw LifecycleError(.invalid, error.message)
        }
        guard case .object(let members) = value else {
            throw LifecycleError(
                .invalid, "The accessory properties must be a JSON object, but they are \(value.kindDescription).")
        }
        var properties: [String: String] = [:]
        for (key, member) in members.pairs {
            guard case .string(let text) = member else {
                throw LifecycleError(
                    .invalid,
                    "The accessory property \"\(key)\" must be a string, but it is \(member.kindDescription).")
            }
            properties[key] = text
        }
        return properties
    }

    /// `parseProperties`, nil for text that is not an object of strings.
    public static func properties(parsing json: String) -> [String: String]? {
        try? parseProperties(json)
    }
}
