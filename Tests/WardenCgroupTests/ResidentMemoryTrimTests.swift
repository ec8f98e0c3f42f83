import Foundation
import Testing
import WardenCgroup

@Suite("Resident memory trim")
struct ResidentMemoryTrimTests {
    /// Only private, read-only, file-backed mappings with no copied page are let go: not
    /// relocated data (anonymous pages), writable data, the vDSO, nor locked pages.
    @Test func onlyUntouchedReadOnlyFileMappingsAreLetGo() {
        let smaps = """
            55d0c0000000-55d0c0400000 r-xp 00001000 fe:01 1234 /usr/bin/appwarden
            Rss:                 900 kB
            Anonymous:             0 kB
            Locked:                0 kB
            55d0c0400000-55d0c0500000 r--p 00401000 fe:01 1234 /usr/bin/appwarden
            Rss:                 200 kB
            Anonymous:            12 kB
            Locked:                0 kB
            55d0c0500000-55d0c0600000 rw-p 00501000 fe:01 1234 /usr/bin/appwarden
            Rss:                  64 kB
            Anonymous:             0 kB
            7f0000000000-7f0000001000 r--p 00000000 fe:01 99 /usr/lib/libswiftCore.so
            Rss:                   4 kB
            Anonymous:             0 kB
            Locked:                4 kB
            7f0000002000-7f0000003000 r--p 00000000 fe:01 98 /usr/lib/x86_64-linux-gnu/libc.so.6
            Rss:                   0 kB
            Anonymous:             0 kB
            7fff00000000-7fff00002000 r-xp 00000000 00:00 0 [vdso]
            Rss:                   8 kB
            Anonymous:             0 kB
            7f0000010000-7f0000020000 r--p 00000000 fe:01 97 /usr/lib/x86_64-linux-gnu/libm.so.6
            Rss:                  16 kB
            Anonymous:             0 kB
            Locked:                0 kB
            """
        let mappings = ResidentMemoryTrim.parse(smaps: smaps)
        #expect(mappings.count == 7)
        #expect(mappings[1].anonymous == 12 * 1024 && mappings[0].resident == 900 * 1024)
        let chosen = ResidentMemoryTrim.readOnlyFileMappings(smaps: smaps)
        #expect(chosen.map(\.start) == [0x55d0_c000_0000, 0x7f00_0001_0000])
        #expect(chosen.map(\.path) == ["/usr/bin/appwarden", "/usr/lib/x86_64-linux-gnu/libm.so.6"])
    }

    /// Trimming this very process lowers its resident memory, and it goes on working: code runs
    /// again from the page cache and relocated data is intact.
    @Test func trimmingThisProcessLowersItsResidentMemoryAndLosesNothing() throws {
        struct Sample: Codable, Equatable {
            var name: String
            var values: [Double]
        }
        let sample = Sample(name: "résumé", values: [1.5, -2, 1e300])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(sample)
        let outcome = try #require(ResidentMemoryTrim.trim())
        #expect(outcome.mappings > 0)
        #expect(outcome.after < outcome.before, "\(outcome)")
        #expect(try JSONDecoder().decode(Sample.self, from: encoded) == sample)
        let again = try encoder.encode(sample)
        #expect(
            again == encoded, "\(String(decoding: again, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))"
        )
        let described: Any = sample
        #expect((described as? any Encodable) != nil)
        #expect(String(describing: sample).contains("résumé"))
    }
}
