public import WardenCore

/// A value that reads itself from a parsed JSON document (`JSONReader.Value`) exactly as its
/// `Decodable` conformance reads the same text, without `JSONDecoder`: the client decodes such
/// answers this way (a thousand apps' `status` spent most of its time in `JSONDecoder`'s generic
/// containers).
public protocol JSONValueDecodable: Decodable {
    init(json: JSONReader.Value) throws(LifecycleError)
}

extension JSONValueDecodable {
    /// Reads the value from JSON text (`subject` names it in errors: "The answer to GET /v1/apps").
    public static func decode(json bytes: [UInt8], subject: String) throws(LifecycleError) -> Self {
        var reader = JSONReader(bytes: bytes, subject: subject, noun: "the answer", maximumDepth: 512)
        let value = try reader.readDocument()
        do {
            return try Self(json: value)
        } catch {
            throw LifecycleError(.invalid, "\(subject) is not the expected JSON: \(error.message)")
        }
    }
}

extension Array: JSONValueDecodable where Element: JSONValueDecodable {
    public init(json: JSONReader.Value) throws(LifecycleError) {
        guard case .array(let elements) = json else { throw JSONReader.Value.mismatch(json, "an array") }
        var values: [Element] = []
        values.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                values.append(try Element(json: element))
            } catch {
                throw LifecycleError(.invalid, "element \(index): \(error.message)")
            }
        }
        self = values
    }
}

extension AppInfo: JSONValueDecodable {
    /// The members `init(from:)` reads, with the same defaults for those it may miss.
    public init(json: JSONReader.Value) throws(LifecycleError) {
        // In the order `init(from:)` reads them, so that the first problem is the one named.
        let name = try json.member("name").string()
        let state = State(rawValue: try json.member("state").string())
        let status = Status(rawValue: try json.member("status").string())
        var pids: [Int32] = []
        for pid in try json.member("pids").array() { pids.append(try pid.integer()) }
        let footprint: Int64 = try json.member("footprintBytes").integer()
        let swapped: Int64 = try json.optionalMember("swappedBytes")?.integer() ?? 0
        let band = try json.optionalMember("band").map { value throws(LifecycleError) in
            Band(rawValue: try value.string())
        }
        let timeRemaining: Int64? = try json.optionalMember("timeRemainingMillis")?.integer()
        let nextWake: Int64? = try json.optionalMember("nextWakeMillis")?.integer()
        var tasks: [TaskInfo] = []
        for task in try json.member("openTasks").array() {
            tasks.append(TaskInfo(id: try task.member("id").integer(), name: try task.member("name").string()))
        }
        var resources: [String] = []
        for resource in try json.member("heldResources").array() { resources.append(try resource.string()) }
        self.init(
            name: name, state: state, status: status, pids: pids, footprintBytes: footprint, swappedBytes: swapped,
            band: band, timeRemainingMillis: timeRemaining, nextWakeMillis: nextWake, openTasks: tasks,
            heldResources: resources, forceQuit: try json.member("forceQuit").bool(),
            hasPreservedState: try json.member("hasPreservedState").bool())
    }
}

extension JSONReader.Value {
    /// The member `key` of an object, which must be there and not `null`.
    func member(_ key: String) throws(LifecycleError) -> JSONReader.Value {
        guard let value = try optionalMember(key) else {
            throw LifecycleError(.invalid, "the member \"\(key)\" is missing")
        }
        return value
    }

    /// The member `key` of an object; nil when absent or `null` (as `decodeIfPresent` reads it).
    func optionalMember(_ key: String) throws(LifecycleError) -> JSONReader.Value? {
        guard case .object(let members) = self else { throw Self.mismatch(self, "an object") }
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func string() throws(LifecycleError) -> String {
        guard case .string(let text) = self else { throw Self.mismatch(self, "a string") }
        return text
    }

    func bool() throws(LifecycleError) -> Bool {
        guard case .bool(let flag) = self else { throw Self.mismatch(self, "true or false") }
        return flag
    }

    func integer<Integer: FixedWidthInteger>(_: Integer.Type = Integer.self) throws(LifecycleError) -> Integer {
        guard case .number(let text) = self, let number = Integer(text) else {
            throw Self.mismatch(self, "an integer that fits \(Integer.self)")
        }
        return number
    }

    func array() throws(LifecycleError) -> [JSONReader.Value] {
        guard case .array(let elements) = self else { throw Self.mismatch(self, "an array") }
        return elements
    }

    static func mismatch(_ value: JSONReader.Value, _ expected: String) -> LifecycleError {
        LifecycleError(.invalid, "\(value.kindDescription) found where \(expected) was expected")
    }
}
