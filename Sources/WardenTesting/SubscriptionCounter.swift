import Synchronization

/// A count that the subscription streams' termination handlers raise from any thread.
public final class SubscriptionCounter: Sendable {
    private let count = Mutex(0)

    /// Makes a count at zero.
    public init() {}

    /// Raises the count by one.
    public func increment() { count.withLock { $0 += 1 } }

    /// The count so far.
    public var value: Int { count.withLock { $0 } }
}
