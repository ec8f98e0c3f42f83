import Foundation
import WardenCore

/// Maps a monotonic clock onto the core's instants (time since the daemon started) and onto
/// wall-clock milliseconds for the journal.
public struct WardenClock: Sendable {
    private let elapsedNow: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// Wall-clock milliseconds since the epoch at the clock's origin.
    public let wallOriginMillis: Int64

    /// Makes a clock whose origin is `clock.now`.
    public init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        self.elapsedNow = { origin.duration(to: clock.now) }
        self.sleeper = { elapsed in try await clock.sleep(until: origin.advanced(by: elapsed), tolerance: nil) }
        self.wallOriginMillis = Self.wallMillisNow()
    }

    /// Time since the origin.
    public func elapsed() -> Duration { elapsedNow() }

    /// Sleeps until `elapsed` time since the origin has passed (at once if it has).
    public func sleep(untilElapsed elapsed: Duration) async throws {
        try await sleeper(elapsed)
    }

    /// The wall-clock time of a moment `elapsed` after the origin, in milliseconds since the epoch.
    public func wallMillis(atElapsed elapsed: Duration) -> Int64 {
        wallOriginMillis + elapsed.milliseconds
    }

    /// The wall clock now, in milliseconds since the epoch.
    public static func wallMillisNow() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

}
