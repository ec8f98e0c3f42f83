import Synchronization
import Testing
import WardenPlatform

/// The daemon's timer thread: a sleep ends at its deadline and not before, a sleep that ends
/// earlier than the pending ones is not held up by them, and a cancelled sleep ends at once.
@Suite struct TimerThreadTests {
    @Test func aSleepEndsAtItsDeadlineAndNotBefore() async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(30))
        try await TimerThread.shared.sleep(until: deadline)
        #expect(clock.now >= deadline)
    }

    @Test func aPassedDeadlineEndsTheSleepAtOnce() async throws {
        let clock = ContinuousClock()
        try await TimerThread.shared.sleep(until: clock.now.advanced(by: .seconds(-1)))
    }

    /// A sleep of 50 ms begun while one of 60 s is pending ends long before the long one would.
    @Test func anEarlierDeadlineIsNotHeldUpByALaterOne() async throws {
        let clock = ContinuousClock()
        let long = Task { try await TimerThread.shared.sleep(until: clock.now.advanced(by: .seconds(60))) }
        defer { long.cancel() }
        try await Task.sleep(for: .milliseconds(20))
        let started = clock.now
        try await TimerThread.shared.sleep(until: started.advanced(by: .milliseconds(50)))
        #expect(started.duration(to: clock.now) < .seconds(30))
    }

    /// Cancelling the task of a 60 s sleep ends it with `CancellationError`, well before 60 s.
    @Test func aCancelledSleepEndsWithCancellation() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let sleeping = Task { try await TimerThread.shared.sleep(until: started.advanced(by: .seconds(60))) }
        try await Task.sleep(for: .milliseconds(20))
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(started.duration(to: clock.now) < .seconds(30))
        let already = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await TimerThread.shared.sleep(until: clock.now.advanced(by: .seconds(60)))
        }
        await #expect(throws: CancellationError.self) { try await already.value }
    }

    /// Many sleeps with mixed deadlines each end, none before its own deadline.
    @Test func manySleepsEachEndAtTheirOwnDeadline() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                let deadline = start.advanced(by: .milliseconds((index * 37) % 200))
                group.addTask {
                    try await TimerThread.shared.sleep(until: deadline)
                    return clock.now >= deadline
                }
            }
            for try await onTime in group { #expect(onTime) }
        }
    }
}
