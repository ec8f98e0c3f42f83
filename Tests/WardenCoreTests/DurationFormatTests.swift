import Testing
import WardenCore

struct DurationFormatTests {
    /// Compound durations, as the trace prints them, parse to their length.
    @Test(
        arguments: [
            ("15m5s", 905_000), ("1h30m", 5_400_000), ("2h0m5s", 7_205_000), ("1.5m", 90_000), ("500ms", 500),
            ("1h0m1.25s", 3_601_250), ("30s", 30_000), ("0s", 0), ("1s500ms", 1500),
        ] as [(String, Int64)])
    func compoundDurationsParseToTheirLength(text: String, millis: Int64) {
        #expect(DurationFormat.parse(text) == .milliseconds(millis))
    }

    /// Text that is not a duration (units out of order or repeated, no number, signs, exponents,
    /// spaces between parts) is refused.
    @Test(arguments: ["", "s", "5", "5x", "30s1m", "1m1m", "+5s", "1e3s", "1h 30m", ".5s", "5.s", "1..5s", "10sec"])
    func malformedDurationsAreRefused(text: String) {
        #expect(DurationFormat.parse(text) == nil)
    }

    /// Every printed duration parses back to itself.
    @Test(
        arguments: [0, 1, 250, 999, 1000, 1500, 30_000, 905_000, 3_600_000, 3_605_000, 5_400_000, 7_205_000, 3_601_250]
            as [Int64])
    func printedDurationsParseBack(millis: Int64) {
        let text = DurationFormat.string(.milliseconds(millis))
        #expect(DurationFormat.parse(text) == .milliseconds(millis), "printed as \(text)")
    }

    /// Durations print in their largest units, as the trace shows times.
    @Test func durationsPrintInTheirLargestUnits() {
        #expect(DurationFormat.string(.seconds(905)) == "15m5s")
        #expect(DurationFormat.string(.seconds(5400)) == "1h30m")
        #expect(DurationFormat.string(.seconds(7205)) == "2h0m5s")
        #expect(DurationFormat.string(.milliseconds(1500)) == "1.5s")
        #expect(DurationFormat.string(.milliseconds(500)) == "500ms")
    }

    /// A time left in a sentence is rounded up to whole seconds, never shown to the millisecond.
    @Test(
        arguments: [
            (2_450_867, "40m51s"), (200, "1s"), (0, "0s"), (-5, "0s"), (900_000, "15m"), (3_600_001, "1h0m1s"),
        ] as [(Int64, String)])
    func sentenceDurationsAreRoundedUpToWholeSeconds(millis: Int64, text: String) {
        #expect(DurationFormat.roundedUp(.milliseconds(millis)) == text)
    }

    /// `app time-remaining` prints seconds with three decimals, as shell scripts compare them.
    @Test(
        arguments: [
            (593_000, "593.000"), (1_234, "1.234"), (7, "0.007"), (0, "0.000"), (-250, "-0.250"),
        ] as [(Int64, String)])
    func secondsHaveThreeDecimals(millis: Int64, text: String) {
        #expect(DurationFormat.secondsString(millis: millis) == text)
    }

    @Test func trimmingRemovesWhitespaceAndNewlinesAtBothEnds() {
        #expect(" \t max\n".trimmingWhitespace() == "max")
        #expect("a b".trimmingWhitespace() == "a b")
        #expect(" \n ".trimmingWhitespace() == "")
    }
}
