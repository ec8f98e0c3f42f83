public import WardenAPI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An event stream of journal entries that survives daemon restarts: made by
/// `WardenConnection.events(path:since:onConnectionChange:)`.
///
/// Each connection asks for the entries after the last id delivered, with the `since` query
/// parameter and the `Last-Event-ID` header, and entries at or below that id are dropped should
/// the daemon send them again, so that each entry is delivered once. Before any entry was
/// delivered, a stream that started live resumes from the wall-clock time of its first
/// connection. Iterate it from one task; cancelling that task ends it.
public struct WardenEventStream: AsyncSequence, Sendable {
    public typealias Element = JournalEntry

    let connection: WardenConnection
    let path: String
    let since: Int64?
    let onConnectionChange: @Sendable (WardenConnection.ConnectionChange) -> Void

    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    public struct Iterator: AsyncIteratorProtocol {
        private let stream: WardenEventStream
        private var current: AsyncThrowingStream<WardenConnection.StreamItem, any Error>.Iterator?
        /// The id of the last entry delivered.
        private var lastID: Int64?
        /// The wall-clock time of the first connection, in ms since the epoch, for a stream that
        /// started live and has delivered nothing yet.
        private var firstConnectedMillis: Int64?
        private var everConnected = false
        /// Whether a daemon answered that it is stopping (503) before the first connection: the
        /// one that takes over is then waited for as a connected stream waits.
        private var metStoppingDaemon = false
        /// When the daemon went away; nil while connected.
        private var outageStart: ContinuousClock.Instant?
        private var reportedLoss = false
        private var backoff: WardenConnection.Backoff
        private var pause: Duration?
        private var finished = false
        private let clock = ContinuousClock()

        init(stream: WardenEventStream) {
            self.stream = stream
            lastID = stream.since
            backoff = WardenConnection.Backoff(stream.connection.retry)
        }

        /// The next entry; nil once the consuming task is cancelled.
        public mutating func next() async throws -> JournalEntry? {
            while !finished {
                if Task.isCancelled { return end() }
                if current == nil {
                    if let pause {
                        do {
                            try await Task.sleep(for: pause)
                        } catch {
                            return end()
                        }
                    }
                    current = stream.connection.connectOnce(path: resumePath, lastEventID: lastID)
                        .makeAsyncIterator()
                }
                do {
                    guard let item = try await current?.next() else {
                        try dropped(nil)
                        continue
                    }
                    switch item {
                    case .connected:
                        connected()
                    case .entry(let entry):
                        if let lastID, entry.id <= lastID { continue }
                        lastID = entry.id
                        return entry
                    }
                } catch let failure as WardenConnection.StreamFailure where failure.mayRetry {
                    try dropped(failure.cause)
                } catch let failure as WardenConnection.StreamFailure {
                    finished = true
                    throw failure.cause
                }
            }
            return nil
        }

        /// The path of the next connection: after the last entry delivered, else after the
        /// first connection's time, else as given.
        private var resumePath: String {
            let separator = stream.path.contains("?") ? "&" : "?"
            if let lastID { return stream.path + separator + "since=\(lastID)" }
            if let firstConnectedMillis { return stream.path + separator + "sinceTime=\(firstConnectedMillis)" }
            return stream.path
        }

        private mutating func connected() {
            if !everConnected {
                everConnected = true
                if lastID == nil { firstConnectedMillis = WardenEventStream.wallMillis() }
            }
            backoff.reset()
            pause = nil
            outageStart = nil
            if reportedLoss {
                reportedLoss = false
                stream.onConnectionChange(.restored(resumingAfter: lastID))
            }
        }

        /// The connection ended, with `failure` or cleanly (nil): reports the loss once, and
        /// schedules the next attempt or gives up.
        private mutating func dropped(_ failure: WardenClientError?) throws {
            let cause = failure ?? WardenClientError(.connection, "The daemon ended the event stream.")
            current = nil
            if Task.isCancelled {
                finished = true
                return
            }
            let now = clock.now
            if outageStart == nil { outageStart = now }
            if everConnected && !reportedLoss {
                reportedLoss = true
                stream.onConnectionChange(.lost(cause))
            }
            if failure?.status == 503 { metStoppingDaemon = true }
            let limit =
                everConnected || metStoppingDaemon
                ? stream.connection.retry.streamOutageLimit : stream.connection.retry.callWindow
            let next = backoff.next()
            if let limit, let outageStart, now + next - outageStart > limit {
                finished = true
                guard limit > .zero else {
                    if let failure { throw failure }
                    return
                }
                throw WardenClientError(
                    cause.code,
                    "The event stream \(stream.path) could not be followed for \(limit.secondsText): \(cause.message)",
                    status: cause.status)
            }
            pause = next
        }

        private mutating func end() -> JournalEntry? {
            finished = true
            current = nil
            return nil
        }
    }

    /// The wall clock now, in milliseconds since the epoch.
    static func wallMillis() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
