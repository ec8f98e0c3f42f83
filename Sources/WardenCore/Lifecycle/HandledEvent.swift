/// What the core made of one event (`Lifecycle.take(_:at:)`): everything the runtime needs to
/// carry it out and journal it, from one call.
public struct HandledEvent: Sendable, Equatable {
    /// The effects to carry out, in order (what `Lifecycle.handle(_:at:)` returns).
    public var actions: [LifecycleAction]
    /// The event as a replay of it needs it (a push to a device token as a push to the app that
    /// owns it), which the journal keeps.
    public var replayable: LifecycleEvent
    /// Whether the event ended an app's process on its own (a crash or an exit the core did not
    /// ask for), as the core saw it before handling it.
    public var endsOnItsOwn: Bool
    /// The killer's candidates before the event was handled, which the journal keeps for a
    /// replay of a kill (a victim is no candidate afterwards); none for an event that cannot kill.
    public var candidates: [KillCandidate]

    public init(
        actions: [LifecycleAction], replayable: LifecycleEvent, endsOnItsOwn: Bool, candidates: [KillCandidate]
    ) {
        self.actions = actions
        self.replayable = replayable
        self.endsOnItsOwn = endsOnItsOwn
        self.candidates = candidates
    }
}
