/// A point on the lifecycle clock, measured from an arbitrary origin.
///
/// The core never reads a clock: every event carries the `Instant` at which it happened.
/// The daemon maps its monotonic clock onto instants; the simulator uses virtual time that
/// starts at zero.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Time since the origin.
    public var sinceOrigin: Duration

    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// The origin of the clock: time zero.
    public static let zero = Instant(sinceOrigin: .zero)

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(sinceOrigin: lhs.sinceOrigin + rhs)
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(sinceOrigin: lhs.sinceOrigin - rhs)
    }

    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        lhs.sinceOrigin - rhs.sinceOrigin
    }

    public var description: String { DurationFormat.string(sinceOrigin) }
}

extension Instant: Codable {
    /// Decodes an instant saved as whole nanoseconds since the origin.
    public init(from decoder: any Decoder) throws {
        let nanoseconds = try decoder.singleValueContainer().decode(Int64.self)
        self.init(sinceOrigin: .nanoseconds(nanoseconds))
    }

    /// Saves the instant as whole nanoseconds since the origin (the clocks it comes from count
    /// no finer).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(sinceOrigin.nanoseconds)
    }
}
