/// A resource path guarded at suspension.
public struct ResourcePath: Sendable, Hashable {
    public var resource: String
    public var path: String

    public init(resource: String, path: String) {
        self.resource = resource
        self.path = path
    }
}
