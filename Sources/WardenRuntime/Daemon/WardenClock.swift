import FoundationEssentials
import Synchronization
import WardenCgroup
import WardenCore
import WardenPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Maps a monotonic clock onto the core's instants (time since the daemon started), onto
/// wall-clock milliseconds for the journal, and onto the boot clock that measures how long no
/// daemon ran.
///
/// Deadlines never follow the wall clock: a device without a real-time clock starts in 1970 and
/// is set by NTP after boot, a step of decades. The journal's times do follow it: each is the wall
/// clock now, less how long ago on the monotonic clock the moment was.
public struct WardenClock: Sendable {
    /// Where the boot clock stands: the kernel's boot id and `CLOCK_BOOTTIME` in milliseconds,
    /// which counts from boot, suspend included, and is never set.
    public struct BootTime: Sendable, Equatable, Codable {
        public var bootID: String
        public var millis: Int64

        public init(bootID: String, millis: Int64) {
            self.bootID = bootID
            self.millis = millis
        }
    }

    private let elapsedNow: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void
    private let wallNow: @Sendable () -> Int64
    private let bootNow: @Sendable () -> BootTime?
    private let wallOffset = WallOffset()

    /// The wall clock less the monotonic clock, in milliseconds, as last read.
    private final class WallOffset: Sendable {
        /// `Int64.min` until the first reading.
        let millis = Atomic<Int64>(.min)
    }

    /// Makes a clock whose origin is `clock.now`. `wallNow` reads the wall clock in milliseconds
    /// since the epoch (default: the system's; a clock for virtual time passes the wall clock at
    /// its origin plus the time elapsed on it); `bootNow` reads the boot clock, nil where there is none.
    public init<C: Clock<Duration>>(
        _ clock: C, wallNow: (@Sendable () -> Int64)? = nil,
        bootNow: @escaping @Sendable () -> BootTime? = WardenClock.bootTimeNow
    ) {
        let origin = clock.now
        let elapsedNow: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        self.elapsedNow = elapsedNow
        if let origin = origin as? ContinuousClock.Instant {
            // The daemon's own clock: its long sleeps (the alarm, the journal's pruning, the
            // watchdog) on a thread parked until each ends, not on libdispatch's timers, which
            // wake once a second while one is pending.
            self.sleeper = { elapsed in try await TimerThread.shared.sleep(until: origin.advanced(by: elapsed)) }
        } else {
            self.sleeper = { elapsed in try await clock.sleep(until: origin.advanced(by: elapsed), tolerance: nil) }
        }
        self.wallNow = wallNow ?? Self.wallMillisNow
        self.bootNow = bootNow
    }

    /// Time since the origin.
    public func elapsed() -> Duration { elapsedNow() }

    /// The core's clock now: the time since the origin, as an `Instant`.
    func now() -> Instant {
        Instant(sinceOrigin: elapsedNow())
    }

    /// The wall-clock time of `instant`, in milliseconds since the epoch.
    func wallMillis(_ instant: Instant) -> Int64 {
        wallMillis(atElapsed: instant.sinceOrigin)
    }

    /// Sleeps until `elapsed` time since the origin has passed (at once if it has).
    public func sleep(untilElapsed elapsed: Duration) async throws {
        try await sleeper(elapsed)
    }

    /// The wall-clock time of a moment `elapsed` after the origin, in milliseconds since the
    /// epoch: the wall clock now, less how long ago the moment was. A step of the wall clock moves
    /// the moments after it and before it alike.
    ///
    /// The two clocks are read one after the other in whole milliseconds, so their difference
    /// wavers by a millisecond from one reading to the next; the difference last used is kept
    /// while a new reading is within a millisecond of it, so that a moment maps to the same wall
    /// time every time it is asked for (the app list's next wakes are then unchanged, and their
    /// kept encodings serve), and a larger step of the wall clock is followed at once.
    public func wallMillis(atElapsed elapsed: Duration) -> Int64 {
        let reading = wallNow() - elapsedNow().milliseconds
        let kept = wallOffset.millis.load(ordering: .relaxed)
        let offset: Int64
        if kept != .min, (kept - 1)...(kept + 1) ~= reading {
            offset = kept
        } else {
            offset = reading
            wallOffset.millis.store(reading, ordering: .relaxed)
        }
        return offset + elapsed.milliseconds
    }

    /// The wall clock now, in milliseconds since the epoch, as this clock reads it.
    public func wallMillis() -> Int64 { wallNow() }

    /// The boot clock now; nil where there is none.
    public func bootTime() -> BootTime? { bootNow() }

    /// How long ago something happened that was saved at `savedWallMillis` on the wall clock and
    /// `savedBoot` on the boot clock: by the boot clock when both readings come from this boot,
    /// which no setting of the wall clock moves; else by the wall clock, never less than zero.
    public func timeSince(savedWallMillis: Int64, savedBoot: BootTime?) -> Duration {
        if let savedBoot, let boot = bootNow(), boot.bootID == savedBoot.bootID, boot.millis >= savedBoot.millis {
            return .milliseconds(boot.millis - savedBoot.millis)
        }
        return .milliseconds(max(0, wallNow() - savedWallMillis))
    }

    /// The system's wall clock now, in milliseconds since the epoch.
    public static func wallMillisNow() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The boot clock now: `/proc/sys/kernel/random/boot_id` and `clock_gettime(CLOCK_BOOTTIME)`;
    /// nil when either cannot be read.
    @Sendable public static func bootTimeNow() -> BootTime? {
        guard let id = bootID else { return nil }
        guard let millis = BootClock.millis() else { return nil }
        return BootTime(bootID: id, millis: millis)
    }

    /// The kernel's id of this boot, read once.
    private static let bootID: String? = {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let id = text.trimmingWhitespace()
        return id.isEmpty ? nil : id
    }()
}
