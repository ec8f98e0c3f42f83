import Foundation
import Testing
import WardenPolicy

/// Inputs that fuzzing the policy parser (scripts/fuzz.sh FuzzPolicy) found; each once aborted
/// the process inside TOMLKit and is now refused with a located sentence.
@Suite struct PolicyFuzzFindingsTests {
    /// The error sentences for `text`, or nil when it parses.
    private func messages(_ text: String) -> [String]? {
        do {
            _ = try PolicyLoader.parse(text, file: "fuzz.toml")
            return nil
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// A date whose "T" is not followed by the hour (the fuzzer's input, as found and minimized)
    /// is refused naming the line, instead of failing toml++'s assertion and aborting.
    @Test func dateTimeWithoutHourAfterTIsRefused() throws {
        let found = "----=1979-05-27Td0:3expec\u{0}\u{0}\u{0}.0.499999-07:00-%i"
        for text in [found, "-=1979-05-27T:", "a = 1979-05-27t:3\n", "a = [1979-05-27T:00]\n"] {
            let refused = try #require(messages(text), "\(text.debugDescription) was accepted")
            #expect(
                refused == [
                    #"Policy "fuzz.toml", line 1: the file is not valid TOML: a date and time must give the hour right after "T", such as 1979-05-27T07:32:00."#
                ], "\(text.debugDescription)")
        }
    }

    /// The fuzzer's inputs, checked in under Fuzz/Corpus/toml, are refused with a sentence.
    @Test func checkedInFuzzFindingsAreRefused() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/toml")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 2)
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let refused = try #require(messages(String(decoding: data, as: UTF8.self)), "\(file) was accepted")
            #expect(refused.allSatisfy { $0.contains("line 1:") }, "\(file): \(refused)")
        }
    }

    /// Well-formed dates and times, with "T", "t" or a space, still parse where a string is
    /// not required: the check refuses only a "T" without the hour.
    @Test func wellFormedDateTimesAreNotRefusedAsSyntax() {
        for value in ["1979-05-27T07:32:00Z", "1979-05-27t07:32:00", "1979-05-27 07:32:00", "1979-05-27", "07:32:00"] {
            let refused = messages("foreground_slots = \(value)\n") ?? []
            #expect(!refused.contains { $0.contains("not valid TOML") }, "\(value): \(refused)")
        }
    }
}
