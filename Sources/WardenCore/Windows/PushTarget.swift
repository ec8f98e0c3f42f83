/// Where a push is addressed.
public enum PushTarget: Sendable, Hashable {
    case app(String)
    case token(String)
}
