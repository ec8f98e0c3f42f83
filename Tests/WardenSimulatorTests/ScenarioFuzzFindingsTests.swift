import Foundation
import Testing
import WardenScenario
import WardenSimulator

/// Inputs that fuzzing the scenario parser (scripts/fuzz.sh FuzzScenario) found.
@Suite struct ScenarioFuzzFindingsTests {
    /// A scenario with a date whose "T" is not followed by the hour, which once aborted the
    /// process inside TOMLKit (the TOML library the reader used then), is refused naming the line.
    @Test func dateTimeWithoutHourAfterTIsRefused() throws {
        let text = """
            [scenario]
            name = "damaged"
            until = 1979-05-27T:
            steps = ["0s home"]
            """
        let error = try #require(throws: ScenarioError.self) {
            try ScenarioLoader.parse(text: text, file: "fuzz.toml")
        }
        #expect(
            error.diagnostics.map(\.description) == [
                #"Scenario "fuzz.toml", line 3: the file is not valid TOML: a date and time must give the hour as two digits right after the date, such as 1979-05-27T07:32:00."#
            ])
    }

    /// The scenario fuzzer's input, a date, a space and a one-digit hour followed by a vertical
    /// tab, which failed another toml++ assertion, is refused naming the line.
    @Test func dateWithOneDigitHourAfterSpaceIsRefused() throws {
        let text = "#\\\"\nn=1979-05-27 1\u{0B}10688202\u{0}\u{0}780-\n"
        let error = try #require(throws: ScenarioError.self) {
            try ScenarioLoader.parse(text: text, file: "fuzz.toml")
        }
        #expect(
            error.diagnostics.map(\.description) == [
                #"Scenario "fuzz.toml", line 2: the file is not valid TOML: a date and time must give the hour as two digits right after the date, such as 1979-05-27T07:32:00."#
            ])
    }

    /// The replay fuzzer's input (scripts/fuzz.sh FuzzSimulation), as found and minimized: a
    /// value shaped like a date whose day is a damaged byte, then a space, a one-digit hour and
    /// a comment, which failed a third toml++ assertion, is refused naming the line.
    @Test func dateShapedValueWithDamagedDayIsRefused() throws {
        let found = try #require(
            Data(
                base64Encoded:
                    "IyBSOTkyNzY0ODBoXQpzdGV0bmFtZSA9IDAzOTktMDUtMjcjMDAwMDAwMDBzY2VuYXJpbzBiYmJiYmJiYmJiYmJiCiMgdGFrI2JlZ3VqIHdpdGkjCltzY2VuYXJpb10Kc3RldG5hbWUgPSAwMDM5LTA1Lac3IDIjwjElNQ=="
            ))
        let cases = [
            (String(decoding: found, as: UTF8.self), 5), ("[scenario]\nx = 0039-05-\u{FFFD}7 2#\n", 2),
        ]
        for (text, line) in cases {
            let error = try #require(throws: ScenarioError.self) {
                try ScenarioLoader.parse(text: text, file: "fuzz.toml")
            }
            #expect(
                error.diagnostics.map(\.description) == [
                    #"Scenario "fuzz.toml", line \#(line): the file is not valid TOML: a date must be written as YYYY-MM-DD, such as 1979-05-27."#
                ])
        }
    }
}
