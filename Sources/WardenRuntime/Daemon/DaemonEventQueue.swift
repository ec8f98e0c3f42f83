import WardenAPI
import WardenCore

/// The daemon's one queue of events, and what it knows of the event being handled.
struct DaemonEventQueue {
    /// Where events are queued; nil before the start.
    var jobs: AsyncStream<WardenDaemon.Job>.Continuation?
    /// The task that takes the events off the queue, one at a time.
    var processor: Task<Void, Never>?
    /// Events queued and not yet handled.
    var queued = 0
    /// Events that the actions of the event being handled led to, handled right after it.
    var followUps: [LifecycleEvent] = []
    /// Whether an event's actions are being carried out (the model may be ahead of the groups).
    var isHandling = false
    /// Reads waiting for the event being handled to be carried out, so that they never report
    /// what the groups are not yet (an app suspended before its group is frozen).
    var waitingReads: [CheckedContinuation<Void, Never>] = []
    /// Journal entries made while an event is carried out, written together once it is: a kill
    /// for memory does not wait for the journal. Nil outside an event (entries go in at once).
    var journalBatch: [NewJournalEntry]?
}
