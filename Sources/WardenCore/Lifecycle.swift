/// The pure, synchronous lifecycle core (DESIGN §2).
///
/// It owns the model of every app and decides everything in DESIGN §1. It never reads a
/// clock, a file or a process: each input is a `LifecycleEvent` with the time it happened,
/// and each effect is a `LifecycleAction` the caller carries out.
public struct Lifecycle: Sendable {
    public private(set) var policy: Policy

    public init(policy: Policy) {
        self.policy = policy
    }

    /// Applies one event at `now` and returns the effects to carry out, in order.
    ///
    /// Throws when the event is refused (unknown app, a call the state does not allow,
    /// an oversize payload, a stale token); a refused event changes nothing.
    public mutating func handle(_ event: LifecycleEvent, at now: Instant) throws(LifecycleError) -> [LifecycleAction] {
        // Implemented in the lifecycle core work; the contract above is fixed.
        []
    }
}
