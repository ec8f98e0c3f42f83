import Synchronization

/// Who wakes the daemon at its next deadline (the earliest of its timers and its memory watch).
///
/// `ClockAlarm` sleeps on the daemon's clock in the daemon's task group; a test that drives
/// virtual time uses an alarm that only records the deadline and wakes the daemon itself.
public protocol DaemonAlarm: Sendable {
    /// Asks to be woken at `deadline` (time since the clock's origin), replacing the previous
    /// request; nil when nothing is due.
    func set(_ deadline: Duration?)

    /// Calls `wake` each time a deadline set passes, until cancelled.
    func run(clock: WardenClock, wake: @escaping @Sendable () -> Void) async
}

/// The real alarm: one task, in the daemon's task group, that sleeps on the clock until the
/// deadline, or until an earlier one is set.
public final class ClockAlarm: DaemonAlarm {
    private struct State {
        var deadline: Duration?
        /// Bumped when a deadline earlier than the one slept for is set.
        var generation: UInt64 = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func set(_ deadline: Duration?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            let earlier = deadline.map { new in state.deadline.map { new < $0 } ?? true } ?? false
            state.deadline = deadline
            guard earlier else { return nil }
            state.generation &+= 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    public func run(clock: WardenClock, wake: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            let (deadline, generation) = state.withLock { ($0.deadline, $0.generation) }
            await withTaskGroup(of: Void.self) { group in
                if let deadline {
                    group.addTask { try? await clock.sleep(untilElapsed: deadline) }
                }
                group.addTask { await self.earlierDeadline(than: generation) }
                await group.next()
                group.cancelAll()
            }
            let due = state.withLock { state -> Bool in
                guard let deadline = state.deadline, deadline <= clock.elapsed() else { return false }
                state.deadline = nil
                return true
            }
            if due && !Task.isCancelled { wake() }
        }
    }

    /// Returns once a deadline earlier than the one of `generation` is set, or on cancellation.
    private func earlierDeadline(than generation: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiter = waiter
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
