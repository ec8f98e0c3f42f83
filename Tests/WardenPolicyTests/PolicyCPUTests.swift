import Testing
import WardenCore
import WardenPolicy

/// `[cpu]` and `[apps.NAME.cpu]`: rule 13's weights, cap and background CPU budget.
struct PolicyCPUTests {
    /// Without `[cpu]` the foreground weighs 10000, the background 1, nothing is capped and the
    /// budget is iOS's 80 % over 60 s.
    @Test func cpuHasItsDefaults() throws {
        let policy = try PolicyLoader.parse("[apps.mail]\ncommand = \"/usr/bin/mail\"\n", file: "cpu.toml")
        let expected = CPUSettings(
            foregroundWeight: 10_000, backgroundWeight: 1, backgroundIdle: false, backgroundMaxPercent: nil,
            backgroundLimitPercent: 80, backgroundLimitWindow: .seconds(60))
        #expect(policy.cpu == expected)
        #expect(policy.app(named: "mail")?.cpu == expected)
    }

    /// An app's `cpu` table overrides the global settings key by key; the rest it takes from `[cpu]`.
    @Test func anAppOverridesTheGlobalCPUSettings() throws {
        let text = """
            [cpu]
            background_weight = 5
            background_max = "50%"
            background_limit_window = "2m"
            [apps.mail]
            command = "/usr/bin/mail"
            [apps.encoder]
            command = "/usr/bin/encoder"
            cpu = { background_limit = "none", background_idle = true }
            """
        let policy = try PolicyLoader.parse(text, file: "cpu.toml")
        let mail = try #require(policy.app(named: "mail")?.cpu)
        #expect(mail.backgroundWeight == 5 && mail.backgroundMaxPercent == 50 && mail.backgroundLimitPercent == 80)
        #expect(mail.backgroundLimitWindow == .seconds(120))
        let encoder = try #require(policy.app(named: "encoder")?.cpu)
        #expect(encoder.backgroundLimitPercent == nil && encoder.backgroundIdle && encoder.backgroundWeight == 5)
    }

    /// Weights out of cgroup v2's range, shares that are not percentages, and a background that
    /// would outweigh the foreground are each refused at their line with a sentence.
    @Test func badCPUValuesAreReported() {
        let text = """
            [cpu]
            foreground_weight = 0
            background_max = "fifty"
            background_limit = "0%"
            [apps.mail]
            command = "/usr/bin/mail"
            cpu = { foreground_weight = 10, background_weight = 20 }
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "cpu.toml")
        #expect(diagnostics.map(\.line) == [2, 3, 4, 7])
        #expect(
            diagnostics.last?.message
                == "background_weight (20) must be at most foreground_weight (10): the foreground is served first.")
    }

    /// The activity class's weight defaults to 100 and yields to a lower foreground weight; one
    /// set above the foreground's is refused with a sentence.
    @Test func theActivityWeightStaysBelowTheForegrounds() throws {
        let text = """
            [cpu]
            foreground_weight = 50
            [apps.music]
            command = "/usr/bin/music"
            """
        let policy = try PolicyLoader.parse(text, file: "cpu.toml")
        #expect(CPUSettings().activityWeight == 100)
        #expect(policy.cpu.activityWeight == 50)
        #expect(policy.app(named: "music")?.cpu.activityWeight == 50)
        let diagnostics = PolicyFixtures.diagnostics(
            parsing: "[cpu]\nforeground_weight = 50\nactivity_weight = 60\n", file: "cpu.toml")
        #expect(
            diagnostics.map(\.description) == [
                #"Policy "cpu.toml", line 3: activity_weight (60) must be at most foreground_weight (50): the foreground is served first."#
            ])
    }
}
