import Synchronization
import Testing
import WardenTesting

/// The manual clock and the daemon's one timer task on it.
@Suite struct ManualClockTests {
    /// Sleepers wake only when the time reaches their deadline, in (deadline, sleep call) order.
    @Test func advancingWakesTheSleepersDueInDeadlineOrder() async throws {
        let clock = ManualClock()
        let woken = WokenSleepers()
        var sleepers: [Task<Void, Never>] = []
        for (name, seconds) in [("late", 5), ("early", 2), ("beyond", 9), ("early-too", 2)] {
            sleepers.append(
                Task {
                    try? await clock.sleep(until: .init(offset: .seconds(seconds)), tolerance: nil)
                    woken.names.withLock { $0.append(name) }
                })
            // Each sleeper is registered before the next one sleeps.
            while clock.sleeperDeadlines.count < sleepers.count { await Task.yield() }
        }
        #expect(clock.sleeperDeadlines.map(\.offset) == [.seconds(2), .seconds(2), .seconds(5), .seconds(9)])
        clock.advance(to: .init(offset: .seconds(1)))
        #expect(clock.sleeperDeadlines.count == 4)
        clock.advance(to: .init(offset: .seconds(5)))
        for sleeper in sleepers.prefix(2) { await sleeper.value }
        await sleepers[3].value
        #expect(Set(woken.names.withLock { $0 }) == ["early", "early-too", "late"])
        #expect(clock.sleeperDeadlines.map(\.offset) == [.seconds(9)])
        sleepers[2].cancel()
        await sleepers[2].value
        #expect(clock.sleeperDeadlines.isEmpty)
        #expect(clock.now.offset == .seconds(5))
    }

    /// A sleep until a time that has passed returns at once.
    @Test func aSleepUntilThePastReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(3))
        try await clock.sleep(until: .init(offset: .seconds(2)), tolerance: nil)
        #expect(clock.sleeperDeadlines.isEmpty)
    }
}

/// The names of the sleepers that woke.
final class WokenSleepers: Sendable {
    let names = Mutex<[String]>([])
}
