import WardenAPI

/// The followers of the event stream (`watch`, `app events`): each one's app filter and the
/// continuation its entries go to.
struct EventSubscribers {
    private var subscribers: [UInt64: (app: String?, continuation: AsyncStream<JournalEntry>.Continuation)] = [:]
    private var nextID: UInt64 = 0

    /// Adds a follower of `app`'s entries (of every app's when nil); returns its id.
    mutating func add(app: String?, continuation: AsyncStream<JournalEntry>.Continuation) -> UInt64 {
        let id = nextID
        nextID += 1
        subscribers[id] = (app, continuation)
        return id
    }

    mutating func remove(_ id: UInt64) {
        subscribers[id] = nil
    }

    /// Hands `entry` to every follower of its app or of every app.
    func publish(_ entry: JournalEntry) {
        for (_, subscriber) in subscribers where subscriber.app == nil || subscriber.app == entry.app {
            subscriber.continuation.yield(entry)
        }
    }

    /// Ends every stream, for a daemon that stops.
    mutating func finishAll() {
        for (_, subscriber) in subscribers { subscriber.continuation.finish() }
        subscribers.removeAll()
    }
}
