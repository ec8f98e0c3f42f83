import Foundation
import Testing
import WardenPolicy

/// Damaged files never trap: they are refused with located sentences.
@Suite struct PolicyRobustnessTests {
    /// A small deterministic generator, so that a failure can be replayed.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Characters that matter to TOML's structure, used to damage files.
    private static let damage: [Character] = [
        "[", "]", "{", "}", "\"", "'", "=", ",", ".", "#", "\n", "\r", "\t", "\\", " ", "x", "0", "_", "%", "é",
        "\u{1}",
    ]

    /// A scenario-like document: multi-line arrays, inline tables, dotted keys.
    private static let scenarioText = """
        [scenario]
        name = "damaged"
        steps = [
          "0s open mail",   # a comment
          "1s push mail {\\"aps\\": {\\"content-available\\": 1}}",
          \"\"\"2s home\"\"\",
        ]
        [policy.memory]
        kill_foreground = false
        [apps.mail]
        footprint = "150MiB"
        env = { LANG = "C", "X Y" = 'z' }
        [expect]
        at = ["1s mail active"]
        """

    /// Damages `text` at one to twelve random places.
    private static func damaged(_ text: [Character], using generator: inout SplitMix) -> String {
        var text = text
        for _ in 0..<Int.random(in: 1...12, using: &generator) {
            let index = Int.random(in: 0..<text.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: text.remove(at: index)
            case 1: text.insert(damage.randomElement(using: &generator)!, at: index)
            default: text[index] = damage.randomElement(using: &generator)!
            }
        }
        return String(text)
    }

    /// Checks that a refusal is made of located sentences.
    private static func checkRefusal(_ error: PolicyError, file: String, text: String) {
        let lineCount = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        #expect(!error.diagnostics.isEmpty)
        for diagnostic in error.diagnostics {
            #expect(diagnostic.file == file)
            #expect(diagnostic.message.last == "." || diagnostic.message.last == "?")
            if let line = diagnostic.line {
                #expect((1...lineCount).contains(line), "\(diagnostic) in:\n\(text)")
            }
        }
    }

    /// Hundreds of randomly damaged copies of the shipped policies are each either accepted
    /// or refused with diagnostics whose lines lie inside the file and whose messages are
    /// sentences; none traps.
    @Test func damagedPoliciesAreRefusedWithLocatedSentences() throws {
        var generator = SplitMix(state: 42)
        var refused = 0
        for name in ["default.toml", "demo.toml"] {
            let original = Array(try String(contentsOfFile: PolicyFixtures.shippedPolicy(name), encoding: .utf8))
            for _ in 0..<300 {
                let text = Self.damaged(original, using: &generator)
                do {
                    _ = try PolicyLoader.parse(text, file: name)
                } catch {
                    refused += 1
                    Self.checkRefusal(error, file: name, text: text)
                }
            }
        }
        #expect(refused > 300)
    }

    /// Damaged scenario-like documents are read or refused with located sentences, never trap.
    @Test func damagedDocumentsAreRefusedWithLocatedSentences() {
        var generator = SplitMix(state: 7)
        let original = Array(Self.scenarioText)
        var refused = 0
        for _ in 0..<300 {
            let text = Self.damaged(original, using: &generator)
            do {
                _ = try LocatedDocument(text: text, file: "s.toml", label: "Scenario")
            } catch {
                refused += 1
                Self.checkRefusal(error, file: "s.toml", text: text)
                #expect(error.diagnostics.allSatisfy { $0.label == "Scenario" })
            }
        }
        #expect(refused > 100)
    }

    /// Damaged headers and missing values are refused with a sentence naming the line.
    @Test(arguments: [
        ("[\nx]\n", 1, "expected a table header, such as [apps.mail], found the end of the line"),
        ("[]\n", 1, "a table header must hold a key, such as [apps.mail]"),
        ("a = 1\n[=]\n", 2, "expected a table header, such as [apps.mail], found \"=\""),
        ("a = [}]\n", 1, "expected a value, found \"}\""),
        ("a = [1,,2]\n", 1, "expected a value, found \",\""),
        ("a = \n", 1, "expected a value, found the end of the line"),
    ])
    func textTheParserCannotTakeIsRefused(text: String, line: Int, reason: String) {
        do {
            _ = try LocatedDocument(text: text, file: "t.toml")
            Issue.record("The text was accepted.")
        } catch {
            #expect(
                error.diagnostics.map(\.description) == [
                    "Policy \"t.toml\", line \(line): the file is not valid TOML: \(reason)."
                ])
        }
    }

    /// The broken policy shown in the project README lists every one of its mistakes.
    @Test func readmeExampleListsEveryMistake() throws {
        let descriptions = try PolicyFixtures.descriptions(ofBrokenPolicy: "broken.toml")
        #expect(
            descriptions == [
                #"Policy "broken.toml", line 4: key "background.grace" must be a duration such as "5s"."#,
                #"Policy "broken.toml", line 7: key "fetch.windw" is unknown; did you mean "fetch.window"?"#,
                #"Policy "broken.toml", line 11: key "memory.warning_exit" is 10% but must be at least warning_enter (15%): the warning level ends only once available memory is back at or above its exit threshold."#,
                #"Policy "broken.toml", line 15: key "apps.mail.background_modes" names an unknown background mode "teleport"; the accepted modes are "fetch", "remote-notification", "audio", "location" and "long-work"."#,
                #"Policy "broken.toml", line 16: key "apps.mail.fetch_interval" must be "never", "minimum" or a duration greater than zero such as "15m"."#,
                #"Policy "broken.toml", line 20: key "apps.camera.resources" names the resource "camera", which is not declared; declare it in a [resources.camera] table."#,
                #"Policy "broken.toml", line 22: app "mail" is declared twice (first at line 13)."#,
            ])
    }
}
