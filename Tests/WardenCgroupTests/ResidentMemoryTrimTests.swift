import Foundation
import Testing
import WardenCgroup

@Suite("Resident memory trim")
struct ResidentMemoryTrimTests {
    /// Only code mapped from files is let go: not read-only or writable data, shared mappings,
    /// the vDSO nor anonymous memory.
    @Test func onlyCodeFromFilesIsLetGo() {
        let maps = """
            55d0c0000000-55d0c0400000 r-xp 00001000 fe:01 1234                       /usr/bin/appwarden
            55d0c0400000-55d0c0500000 r--p 00401000 fe:01 1234                       /usr/bin/appwarden
            55d0c0500000-55d0c0600000 rw-p 00501000 fe:01 1234                       /usr/bin/appwarden
            7f0000000000-7f0000001000 r-xs 00000000 fe:01 99                         /dev/shm/shared code
            7f0000010000-7f0000020000 r-xp 00010000 fe:01 97                         /usr/lib/x86_64-linux-gnu/libm.so.6
            7f0000030000-7f0000040000 rw-p 00000000 00:00 0
            7fff00000000-7fff00002000 r-xp 00000000 00:00 0                          [vdso]
            """
        let mappings = ResidentMemoryTrim.parse(maps: maps)
        #expect(mappings.count == 7)
        #expect(mappings[3].path == "/dev/shm/shared code")
        #expect(mappings[5].path.isEmpty)
        let chosen = ResidentMemoryTrim.codeMappings(maps: maps)
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
