import Testing
import WardenCore
import WardenScenario
import WardenSimulator

/// The `memory` step: one memory sample as the daemon measured it.
@Suite struct MemoryStepTests {
    let parser = ScenarioStepParser(apps: ["mail"])

    /// A sample with and without swap figures becomes the core's memory sample, to the byte.
    @Test func aMemoryStepIsOneSampleToTheByte() throws {
        let plain = try parser.parse("5s memory 29360129B of 600MiB")
        #expect(plain.verb == .event(.memorySample(available: 29_360_129, total: 600 << 20)))
        let swapped = try parser.parse(
            "5s memory 28MiB of 600MiB swap 100MiB of 1GiB swappable 300MiB zram 2.5 stall 12%")
        let swap = SwapFigures(
            free: 100 << 20, total: 1 << 30, swappable: 300 << 20, compressionRatio: 2.5, stallPercent: 12)
        #expect(swapped.verb == .event(.memorySample(available: 28 << 20, total: 600 << 20, swap: swap)))
    }

    /// A malformed sample is refused with a sentence naming what is wrong.
    @Test func aMalformedMemoryStepNamesWhatIsWrong() {
        let cases = [
            ("1s memory 28MiB", "expects \"of\" where it found nothing"),
            ("1s memory 28MiB from 600MiB", "expects \"of\" where it found \"from\""),
            ("1s memory 700MiB of 600MiB", "at most the device memory"),
            ("1s memory lots of 600MiB", "the size \"lots\""),
            ("1s memory 28MiB of 600MiB fast", "does not take \"fast\""),
            ("1s memory 28MiB of 600MiB swap 1GiB of 1GiB swappable 1MiB stall 120%", "from 0% to 100%"),
        ]
        for (step, words) in cases {
            #expect {
                _ = try parser.parse(step)
            } throws: { error in
                (error as? ScenarioStepError)?.message.contains(words) == true
            }
        }
    }
}
