import Synchronization
import WardenCore
public import WardenRuntime

/// A clock whose time moves only when a test advances it.
///
/// Sleepers wait until the test moves the time to or past their deadline; `advance(to:)` wakes
/// those due at or before the new time in (deadline, sleep call) order, like NIOEmbedded's
/// `advanceTime(to:)`. A cancelled sleep ends at once with `CancellationError`.
///
/// ```swift
/// let clock = ManualClock()
/// Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(5)), tolerance: nil) }
/// clock.advance(by: .seconds(5))  // wakes the sleeper
/// ```
public final class ManualClock: Clock, Sendable {
    /// A moment of a manual clock: the time since its start.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock's start.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        var deadline: Instant
        var order: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextOrder: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Makes a clock at time zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The earliest deadline a sleeper waits for, if any sleeps.
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.values.map(\.deadline).min() }
    }

    /// The deadlines of the sleepers, earliest first.
    public var sleeperDeadlines: [Instant] {
        state.withLock {
            $0.sleepers.values.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }.map(\.deadline)
        }
    }

    /// Sleeps until the test moves the time to `deadline` or past it; returns at once when it
    /// has passed.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let order = state.withLock { state -> UInt64 in
            state.nextOrder &+= 1
            return state.nextOrder
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[order] = Sleeper(deadline: deadline, order: order, continuation: continuation)
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: order) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time to `instant` (never backwards) and wakes every sleeper due at or before
    /// it, in (deadline, sleep call) order.
    public func advance(to instant: Instant) {
        let due = state.withLock { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            let due = state.sleepers.values.filter { $0.deadline <= state.now }
                .sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
            for sleeper in due { state.sleepers[sleeper.order] = nil }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the time on by `duration` and wakes the sleepers due.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }
}

extension WardenClock {
    /// A daemon's clock on `clock`: its wall clock is the system's at this moment plus the
    /// virtual time elapsed (unless `wallNow` says otherwise), and it has no boot clock unless
    /// `bootNow` gives one, so that what it journals follows virtual time alone.
    public static func virtual(
        _ clock: ManualClock, wallNow: (@Sendable () -> Int64)? = nil,
        bootNow: @escaping @Sendable () -> BootTime? = { nil }
    ) -> WardenClock {
        let wallOrigin = WardenClock.wallMillisNow() - clock.now.offset.milliseconds
        return WardenClock(clock, wallNow: wallNow ?? { wallOrigin + clock.now.offset.milliseconds }, bootNow: bootNow)
    }
}
