/// Where the push router's device tokens come from (rule 5).
///
/// The core never reads randomness itself: whoever builds a `Lifecycle` hands it a source.
/// The daemon uses `systemRandom`; the simulator, scenarios and tests use the default
/// `deterministic` one so that a replayed sequence of calls hands out the same tokens.
public struct DeviceTokenSource: Sendable {
    /// Makes the token of install number `install` (1, 2, 3… per app) of `app`. The router asks
    /// again if a token it returns was ever handed out before.
    public var make: @Sendable (_ app: String, _ install: Int) -> String

    public init(make: @escaping @Sendable (_ app: String, _ install: Int) -> String) {
        self.make = make
    }

    /// `"tok-APP-N"`, N the install number: readable and reproducible, for the simulator and tests.
    public static let deterministic = DeviceTokenSource { app, install in "tok-\(app)-\(install)" }

    /// 128 bits from the system's random source (`SystemRandomNumberGenerator`, which reads
    /// `getrandom`), as 32 lowercase hexadecimal digits: unguessable, and unrelated to the app.
    public static let systemRandom = DeviceTokenSource { _, _ in
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next()) + hex(generator.next())
    }

    /// `value` as 16 hexadecimal digits, zero-padded.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
