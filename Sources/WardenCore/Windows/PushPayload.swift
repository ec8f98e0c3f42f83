import WardenJSON

/// A silent-push payload, parsed without Foundation (WardenCore imports only the standard library and
/// `WardenJSON`) by `JSONReader`: strict JSON, one object, containers nested at most `maximumDepth` deep; every
/// error names the byte offset (counted from 0) where it was found.
public struct PushPayload: Sendable, Equatable {
    /// `aps.content-available` is 1.
    public var contentAvailable: Bool
    /// The payload's top-level "id" string, if any.
    public var id: String?

    /// How deep arrays and objects may nest.
    public static let maximumDepth = 64

    /// Throws LifecycleError(.invalid, …) for malformed JSON or a payload that is not a JSON object,
    /// with a sentence naming the problem (and the byte offset).
    ///
    /// `content-available` counts when it is the number 1 (`1`, `1.0`); any other value, or
    /// none, leaves `contentAvailable` false. An `id` that is not a string is ignored.
    public init(parsing json: String) throws(LifecycleError) {
        let bytes = Array(json.utf8)
        guard bytes.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw LifecycleError(.invalid, "The push payload is empty; it must be a JSON object.")
        }
        var reader = JSONReader(
            bytes: bytes, subject: "The push payload", noun: "the payload", maximumDepth: Self.maximumDepth)
        let value: JSONReader.Value
        do throws(JSONError) {
            value = try reader.readDocument()
        } catch {
            throw LifecycleError(.invalid, error.message)
        }
        guard case .object(let members) = value else {
            throw LifecycleError(
                .invalid, "The push payload must be a JSON object, but it is \(value.kindDescription).")
        }
        var contentAvailable = false
        if case .object(let aps)? = members["aps"], case .number(let number)? = aps["content-available"] {
            contentAvailable = Double(number) == 1
        }
        self.contentAvailable = contentAvailable
        if case .string(let id)? = members["id"] {
            self.id = id
        } else {
            self.id = nil
        }
    }
}
