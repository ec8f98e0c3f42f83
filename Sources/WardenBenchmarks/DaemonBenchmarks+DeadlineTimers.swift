import WardenRuntime

extension DaemonBenchmarks {
    /// The daemon's timer machinery on the real clock: each deadline is a task sleeping on a
    /// `WardenClock` until it is due, which queues the timer on one stream of events; the
    /// lateness is how long after its deadline a timer is taken from the queue.
    actor DeadlineTimers {
        private let clock = WardenClock(ContinuousClock())
        private var deadlines: [Int: Duration] = [:]
        private var timers: [Int: (generation: UInt64, task: Task<Void, Never>)] = [:]
        private var generation: UInt64 = 0
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
            return lateness
        }

        private func arm(_ id: Int, deadline: Duration) {
            deadlines[id] = deadline
            generation &+= 1
            let armed = generation
            let clock = clock
            let task = Task { [weak self] in
                try? await clock.sleep(untilElapsed: deadline)
                guard !Task.isCancelled else { return }
                await self?.due(id, generation: armed)
            }
            timers[id] = (armed, task)
        }

        private func due(_ id: Int, generation: UInt64) {
            guard timers[id]?.generation == generation else { return }
            timers[id] = nil
            jobs?.yield(id)
        }
    }
}
