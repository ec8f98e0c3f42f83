import Testing
import WardenCore
import WardenPolicy
import WardenScenario
import WardenSimulator

@Suite struct ScenarioComparisonTests {
    /// An hour with mail in background: with `modes` for mail's background modes.
    static func scenario(mailModes modes: String) throws -> Scenario {
        let text = """
            [scenario]
            name = "an hour in background"
            until = "1h"
            steps = ["0s open mail", "1s home"]

            [apps.mail]
            footprint = "150MiB"
            background_modes = [\(modes)]
            \(modes.isEmpty ? "" : "fetch_interval = \"15m\"")
            """
        return try ScenarioLoader.parse(text: text, file: "hour.toml")
    }

    /// Windows gained and lost count each fetch window one run opened and the other did not: a
    /// candidate that gives mail background fetch gains every window, one that takes it away loses
    /// them all, and the same policy gains and loses none.
    @Test func windowsGainedAndLostCountTheWindowsOfOneRunOnly() throws {
        let withFetch = try PolicyLoader.parse(
            """
            [apps.mail]
            command = "/usr/bin/mail"
            background_modes = ["fetch"]
            fetch_interval = "15m"
            """, file: "fetch.toml")
        let withoutFetch = try PolicyLoader.parse("[apps.mail]\ncommand = \"/usr/bin/mail\"\n", file: "plain.toml")

        let gaining = ScenarioComparison(scenario: try Self.scenario(mailModes: ""), candidate: withFetch)
        let windows = gaining.candidate.record.windows.count
        #expect(windows > 0)
        #expect(gaining.windowsGained == windows && gaining.windowsLost == 0)

        let losing = ScenarioComparison(scenario: try Self.scenario(mailModes: #""fetch""#), candidate: withoutFetch)
        #expect(losing.windowsLost == losing.baseline.record.windows.count && losing.windowsLost > 0)
        #expect(losing.windowsGained == 0)

        let same = ScenarioComparison(scenario: try Self.scenario(mailModes: #""fetch""#), candidate: withFetch)
        #expect(same.windowsGained == 0 && same.windowsLost == 0)
    }

    /// Each run counts its cold launches, opens of an app the device had killed: maps, the
    /// larger, is killed and opened again under the scenario's policy; the candidate protects it,
    /// so mail goes instead and maps comes back hot.
    @Test func eachRunCountsItsColdLaunches() throws {
        let scenario = try ScenarioLoader.parse(
            text: """
                [scenario]
                name = "maps back after a kill"
                steps = ["0s open mail", "1s open maps", "10s home", "20s pressure critical", "30s open maps"]

                [apps.mail]
                footprint = "150MiB"

                [apps.maps]
                footprint = "900MiB"
                """, file: "back.toml")
        let candidate = try PolicyLoader.parse(
            "[apps.mail]\ncommand = \"/usr/bin/mail\"\n[apps.maps]\ncommand = \"/usr/bin/maps\"\nprotected = true\n",
            file: "candidate.toml")
        let comparison = ScenarioComparison(scenario: scenario, candidate: candidate)
        #expect(comparison.baseline.record.killOrder == ["maps"])
        #expect(comparison.baseline.record.coldLaunches == ["maps"])
        #expect(comparison.candidate.record.killOrder == ["mail"])
        #expect(comparison.candidate.record.coldLaunches == [])
    }
}
