public import WardenCore
public import WardenJSON

/// A value that reads itself from JSON text value by value (`JSONReader`'s pulling reads) as its
/// `Decodable` conformance reads the same text, without `JSONDecoder` and without a tree of the
/// document: the client decodes the answers of the entries declared with such a type
/// (`APIEndpoint.pullingReader`) this way (a thousand apps' `status` spent most of its time in
/// `JSONDecoder`'s generic containers, and then in the tree). It is stricter than
/// `JSONDecoder` in two ways, as `JSONReader` is: a key repeated in one object is refused, and so
/// is a number with a fraction or an exponent (`5.0`, `1e3`) where an integer is expected.
public protocol JSONValueDecodable: Decodable {
    /// Reads the value at the reader's position, leaving the reader after it.
    init(reading reader: inout JSONReader) throws(JSONReader.Failure)
}

extension JSONValueDecodable {
    /// Reads the value from JSON text (`subject` names it in errors: "The answer to GET /v1/apps").
    public static func decode(json bytes: [UInt8], subject: String) throws(LifecycleError) -> Self {
        var reader = JSONReader(bytes: bytes, subject: subject, noun: "the answer", maximumDepth: 512)
        do throws(JSONReader.Failure) {
            try reader.beginDocument()
            let value = try Self(reading: &reader)
            try reader.endDocument()
            return value
        } catch {
            switch error {
            case .invalid(let error): throw LifecycleError(.invalid, error.message)
            case .mismatch(let problem):
                // Text that is not JSON further on is named as such, as a reader of the whole
                // document would have named it before finding what does not fit.
                var whole = JSONReader(bytes: bytes, subject: subject, noun: "the answer", maximumDepth: 512)
                do throws(JSONError) {
                    _ = try whole.readDocument()
                } catch {
                    throw LifecycleError(.invalid, error.message)
                }
                throw LifecycleError(.invalid, "\(subject) is not the expected JSON: \(problem)")
            }
        }
    }
}

extension Array: JSONValueDecodable where Element: JSONValueDecodable {
    public init(reading reader: inout JSONReader) throws(JSONReader.Failure) {
        self = try reader.nextArray(of: Element.init(reading:))
    }
}

extension AppInfo: JSONValueDecodable {
    /// The members `init(from:)` reads, in any order, with the same defaults for those it may
    /// miss; members it does not know are skipped.
    public init(reading reader: inout JSONReader) throws(JSONReader.Failure) {
        var name: String?
        var state: String?
        var status: String?
        var pids: [Int32]?
        var footprint: Int64?
        var swapped: Int64?
        var reclaimable: Int64?
        var band: String?
        var timeRemaining: Int64?
        var nextWake: Int64?
        var tasks: [TaskInfo]?
        var activities: [ActivityInfo]?
        var resources: [String]?
        var forceQuit: Bool?
        var preserved: Bool?
        var cpuClass: String?
        var cpuTime: Int64?
        var backgroundCPU: Int64?
        var coldLaunches: Int64?
        try reader.nextObject { key, reader throws(JSONReader.Failure) in
            switch key {
            case "name": name = try reader.skipNull() ? nil : reader.nextString()
            case "state": state = try reader.skipNull() ? nil : reader.nextString()
            case "status": status = try reader.skipNull() ? nil : reader.nextString()
            case "pids":
                pids =
                    try reader.skipNull()
                    ? nil
                    : reader.nextArray { (reader: inout JSONReader) throws(JSONReader.Failure) in
                        try reader.nextInteger()
                    }
            case "footprintBytes": footprint = try reader.skipNull() ? nil : reader.nextInteger()
            case "swappedBytes": swapped = try reader.skipNull() ? nil : reader.nextInteger()
            case "reclaimableBytes": reclaimable = try reader.skipNull() ? nil : reader.nextInteger()
            case "band": band = try reader.skipNull() ? nil : reader.nextString()
            case "timeRemainingMillis": timeRemaining = try reader.skipNull() ? nil : reader.nextInteger()
            case "nextWakeMillis": nextWake = try reader.skipNull() ? nil : reader.nextInteger()
            case "openTasks": tasks = try reader.skipNull() ? nil : reader.nextArray(of: TaskInfo.init(reading:))
            case "activities":
                activities = try reader.skipNull() ? nil : reader.nextArray(of: ActivityInfo.init(reading:))
            case "heldResources":
                resources =
                    try reader.skipNull()
                    ? nil
                    : reader.nextArray { (reader: inout JSONReader) throws(JSONReader.Failure) in
                        try reader.nextString()
                    }
            case "forceQuit": forceQuit = try reader.skipNull() ? nil : reader.nextBool()
            case "hasPreservedState": preserved = try reader.skipNull() ? nil : reader.nextBool()
            case "cpuClass": cpuClass = try reader.skipNull() ? nil : reader.nextString()
            case "cpuTimeMillis": cpuTime = try reader.skipNull() ? nil : reader.nextInteger()
            case "backgroundCPUPercent": backgroundCPU = try reader.skipNull() ? nil : reader.nextInteger()
            case "coldLaunches": coldLaunches = try reader.skipNull() ? nil : reader.nextInteger()
            default: try reader.skipValue()
            }
        }
        // In the order `init(from:)` reads them, so that the first one missing is the one named.
        self.init(
            name: try required(name, "name"), state: State(rawValue: try required(state, "state")),
            status: Status(rawValue: try required(status, "status")), pids: try required(pids, "pids"),
            footprintBytes: try required(footprint, "footprintBytes"), swappedBytes: swapped ?? 0,
            reclaimableBytes: reclaimable, band: band.map(Band.init(rawValue:)), timeRemainingMillis: timeRemaining,
            nextWakeMillis: nextWake,
            openTasks: try required(tasks, "openTasks"), activities: activities ?? [],
            heldResources: try required(resources, "heldResources"),
            forceQuit: try required(forceQuit, "forceQuit"),
            hasPreservedState: try required(preserved, "hasPreservedState"), cpuClass: cpuClass,
            cpuTimeMillis: cpuTime, backgroundCPUPercent: backgroundCPU.map { Int(clamping: $0) },
            coldLaunches: Int(clamping: coldLaunches ?? 0))
    }
}

extension TaskInfo {
    init(reading reader: inout JSONReader) throws(JSONReader.Failure) {
        var id: Int?
        var name: String?
        try reader.nextObject { key, reader throws(JSONReader.Failure) in
            switch key {
            case "id": id = try reader.skipNull() ? nil : reader.nextInteger()
            case "name": name = try reader.skipNull() ? nil : reader.nextString()
            default: try reader.skipValue()
            }
        }
        self.init(id: try required(id, "id"), name: try required(name, "name"))
    }
}

extension ActivityInfo {
    init(reading reader: inout JSONReader) throws(JSONReader.Failure) {
        var id: Int?
        var mode: String?
        try reader.nextObject { key, reader throws(JSONReader.Failure) in
            switch key {
            case "id": id = try reader.skipNull() ? nil : reader.nextInteger()
            case "mode": mode = try reader.skipNull() ? nil : reader.nextString()
            default: try reader.skipValue()
            }
        }
        self.init(id: try required(id, "id"), mode: try required(mode, "mode"))
    }
}

/// The member `key`'s value, which must have been there.
private func required<Value>(_ value: Value?, _ key: String) throws(JSONReader.Failure) -> Value {
    guard let value else { throw .mismatch("the member \"\(key)\" is missing") }
    return value
}
