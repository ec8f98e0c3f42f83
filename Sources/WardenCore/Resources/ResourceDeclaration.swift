/// A shared resource (`[resources.NAME]`): rule 7.
public struct ResourceDeclaration: Sendable, Equatable {
    public var name: String
    /// Paths that count as holding the resource when one of the app's processes has one
    /// open or locked. Empty: the resource is held only through `acquire`.
    public var paths: [String]
    /// What the resource is, for people reading `status` and `explain`.
    public var description: String?

    public init(name: String, paths: [String] = [], description: String? = nil) {
        self.name = name
        self.paths = paths
        self.description = description
    }
}
