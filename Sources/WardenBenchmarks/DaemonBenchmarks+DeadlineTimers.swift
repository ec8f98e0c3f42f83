import WardenCore
import WardenRuntime
import WardenScenario
import WardenSimulator

extension DaemonBenchmarks {
    /// The daemon's timer machinery on the real clock: the deadlines wait in one `DeadlineQueue`,
    /// served by one task that sleeps on a `WardenClock` until the earliest deadline and queues
    /// the timers due on one stream of events; the lateness is how long after its deadline a
    /// timer is taken from that stream.
    actor DeadlineTimers {
        private let clock = WardenClock(ContinuousClock())
        private var deadlines: [Int: Duration] = [:]
        private var queue = DeadlineQueue<Int>()
        private var server: (id: UInt64, task: Task<Void, Never>, wake: Duration)?
        private var servers: UInt64 = 0
        private var jobs: AsyncStream<Int>.Continuation?

        /// Arms `count` timers at once, due evenly over `spread` starting `lead` from now, in a
        /// shuffled order, and returns each one's lateness when handled.
        func measure(count: Int, spread: Duration, lead: Duration) async -> [Duration] {
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            jobs = continuation
            let start = clock.elapsed() + lead
            for id in (0..<count).shuffled() {
                arm(id, deadline: start + spread * (Double(id) / Double(count)))
            }
            var lateness: [Duration] = []
            for await id in stream {
                lateness.append(clock.elapsed() - (deadlines[id] ?? .zero))
                if lateness.count == count { break }
            }
            continuation.finish()
            server?.task.cancel()
            return lateness
        }

        private func arm(_ id: Int, deadline: Duration) {
            deadlines[id] = deadline
            queue.schedule(id, at: Instant(sinceOrigin: deadline))
            if let server, server.wake <= deadline { return }
            server?.task.cancel()
            servers &+= 1
            let serverID = servers
            let clock = clock
            let task = Task { [weak self] in
                var wake = deadline
                while true {
                    try? await clock.sleep(untilElapsed: wake)
                    guard !Task.isCancelled, let self, let next = await self.fireDue(server: serverID) else { return }
                    wake = next
                }
            }
            server = (serverID, task, deadline)
        }

        /// Queues the timers due by now; returns the next deadline, nil when none is left.
        private func fireDue(server serverID: UInt64) -> Duration? {
            guard server?.id == serverID else { return nil }
            let now = Instant(sinceOrigin: clock.elapsed())
            while let entry = queue.popDue(through: now) {
                jobs?.yield(entry.element)
            }
            guard let next = queue.nextDeadline else {
                server = nil
                return nil
            }
            server?.wake = next.sinceOrigin
            return next.sinceOrigin
        }
    }
}
