import Synchronization
import Testing
import WardenCore
import WardenRuntime
import WardenTesting

/// The daemon's clock maps moments onto the wall clock for the journal and the app list.
@Suite struct WardenClockTests {
    /// A wall clock read in whole milliseconds beside the monotonic one: each reading is off by
    /// up to a millisecond, as the two clocks' fractions fall, and it can be stepped.
    final class WaveringWall: Sendable {
        private let state = Mutex<(readings: Int, step: Int64)>((0, 0))

        func read(at elapsedMillis: Int64) -> Int64 {
            state.withLock { state in
                state.readings += 1
                return 1_800_000_000_000 + elapsedMillis + state.step + (state.readings.isMultiple(of: 2) ? 1 : 0)
            }
        }

        func step(by millis: Int64) { state.withLock { $0.step += millis } }
    }

    /// A moment maps to the same wall time each time it is asked for, though the readings of the
    /// wall clock waver by a millisecond; a step of the wall clock moves it at once.
    @Test func aMomentKeepsItsWallTimeThroughWaveringReadingsAndFollowsASteppedClock() {
        let manual = ManualClock()
        let wall = WaveringWall()
        let clock = WardenClock.virtual(manual, wallNow: { wall.read(at: manual.now.offset.milliseconds) })
        let wake = Duration.seconds(900)
        let first = clock.wallMillis(atElapsed: wake)
        var seen: Set<Int64> = []
        for _ in 0..<10 {
            manual.advance(by: .milliseconds(7))
            seen.insert(clock.wallMillis(atElapsed: wake))
        }
        #expect(seen == [first])
        #expect((1_800_000_900_000...1_800_000_900_001).contains(first))

        wall.step(by: 3_600_000)
        #expect(clock.wallMillis(atElapsed: wake) - first >= 3_599_999)
        #expect(clock.wallMillis(atElapsed: wake) - first <= 3_600_001)
    }
}
