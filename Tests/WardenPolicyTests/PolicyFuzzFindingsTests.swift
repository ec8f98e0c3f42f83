import Foundation
import Testing
import WardenPolicy

/// Inputs that fuzzing the policy parser (scripts/fuzz.sh FuzzPolicy) found; each once aborted
/// the process inside TOMLKit (toml++), the TOML library the policy reader used then, and is
/// refused with a located sentence.
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

    /// A date whose "T" is not followed by the hour (the fuzzer's input, as found and minimized),
    /// or whose space is followed by a one-digit hour, is refused naming the line, instead of
    /// failing one of toml++'s assertions and aborting as it once did.
    @Test func dateTimeWithoutTwoDigitHourIsRefused() throws {
        let found = "----=1979-05-27Td0:3expec\u{0}\u{0}\u{0}.0.499999-07:00-%i"
        let texts = [
            found, "-=1979-05-27T:", "a = 1979-05-27t:3\n", "a = [1979-05-27T:00]\n", "e=1979-05-27 5\n",
            "a = { b = 1979-05-27 0}\n", "a = [1979-05-27 5]\n", "a = 1979-05-27T5:32:00\n",
        ]
        for text in texts {
            let refused = try #require(messages(text), "\(text.debugDescription) was accepted")
            #expect(
                refused == [
                    #"Policy "fuzz.toml", line 1: the file is not valid TOML: a date and time must give the hour as two digits right after the date, such as 1979-05-27T07:32:00."#
                ], "\(text.debugDescription)")
        }
    }

    /// A value that toml++ took for a date by its shape (ten characters, the fifth and eighth
    /// dashes) but whose day is damaged, followed by a space and a one-digit hour — the
    /// fuzzer's input, as found and minimized — is refused naming the line, instead of failing
    /// the assertion that the hour does not end the value.
    @Test func dateShapedValueWithDamagedDayIsRefused() throws {
        let found = try #require(Data(base64Encoded: "MTk3OS0wNS09MTk1OC0wNS0yvyA1Cg=="))
        let texts = [
            String(decoding: found, as: UTF8.self), "a = 1958-05-2\u{FFFD} 5\n", "a = 1958-05-2x 5\n",
            "a = [1958-0_5-27 5]\n", "a = 1979-05-27x\n", "a = 1979-05-2_7T07:32:00\n",
        ]
        for text in texts {
            let refused = try #require(messages(text), "\(text.debugDescription) was accepted")
            #expect(
                refused == [
                    #"Policy "fuzz.toml", line 1: the file is not valid TOML: a date must be written as YYYY-MM-DD, such as 1979-05-27."#
                ], "\(text.debugDescription)")
        }
    }

    /// A date and time whose time after the hour is not HH:MM:SS with an optional fraction and
    /// offset is refused by the scanner naming the line.
    @Test func dateTimeWithMalformedTimeIsRefused() throws {
        let texts = [
            "a = 1979-05-27T07:32\n", "a = 1979-05-27 07:3x:00\n", "a = 1979-05-27T07:32:00.\n",
            "a = 1979-05-27T07:32:00+7:00\n", "a = 1979-05-27T07:32:00Zx\n", "a = [1979-05-27 07:32:00-07]\n",
        ]
        for text in texts {
            let refused = try #require(messages(text), "\(text.debugDescription) was accepted")
            #expect(
                refused == [
                    #"Policy "fuzz.toml", line 1: the file is not valid TOML: a date and time must give the time as HH:MM:SS, then optionally a fraction and "Z" or an offset, such as 1979-05-27T07:32:00.5-07:00."#
                ], "\(text.debugDescription)")
        }
    }

    /// The fuzzer's inputs, checked in under Fuzz/Corpus/toml, are refused with a located
    /// sentence about their date (and time).
    @Test func checkedInFuzzFindingsAreRefused() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/toml")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 9)
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let refused = try #require(messages(String(decoding: data, as: UTF8.self)), "\(file) was accepted")
            let syntax = "the file is not valid TOML: a date"
            #expect(refused.contains { $0.contains(", line ") && $0.contains(syntax) }, "\(file): \(refused)")
        }
    }

    /// Well-formed dates and times, with "T", "t" or a space, still parse where a string is
    /// not required: the check refuses only what is not a TOML date or date and time.
    @Test func wellFormedDateTimesAreNotRefusedAsSyntax() {
        let values = [
            "1979-05-27T07:32:00Z", "1979-05-27t07:32:00", "1979-05-27 07:32:00", "1979-05-27", "07:32:00",
            "1979-05-27 # a date and a comment", "1979-05-27T00:32:00.999999-07:00", "1979-05-27 07:32:00.5Z",
            "1979-05-27T07:32:00+01:30", "[1979-05-27, 1979-05-27 07:32:00]",
        ]
        for value in values {
            let refused = messages("foreground_slots = \(value)\n") ?? []
            #expect(!refused.contains { $0.contains("not valid TOML") }, "\(value): \(refused)")
        }
    }
}
