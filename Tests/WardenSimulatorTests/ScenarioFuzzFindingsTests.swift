import Testing
import WardenSimulator

/// Inputs that fuzzing the scenario parser (scripts/fuzz.sh FuzzScenario) found.
@Suite struct ScenarioFuzzFindingsTests {
    /// A scenario with a date whose "T" is not followed by the hour, which once aborted the
    /// process inside TOMLKit, is refused naming the line.
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
                #"Scenario "fuzz.toml", line 3: the file is not valid TOML: a date and time must give the hour right after "T", such as 1979-05-27T07:32:00."#
            ])
    }
}
