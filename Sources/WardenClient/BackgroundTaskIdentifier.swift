/// The id of a background task begun with `WardenApplication.beginBackgroundTask(withName:expirationHandler:)`.
public struct BackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }
}
