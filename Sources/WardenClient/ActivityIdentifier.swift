/// The id of continuous background work the app began (`beginActivity(_:)`), for `endActivity(_:)`.
public struct ActivityIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }
}
