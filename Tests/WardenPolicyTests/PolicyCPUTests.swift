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
            backgroundLimitPercent: 80, backgroundLimitWindow: .seconds(60), foregroundIOWeight: 1000,
            backgroundIOWeight: 10)
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

    /// The I/O weights are read globally and per app, and refused out of range or when the
    /// background would outweigh the foreground.
    @Test func ioWeightsAreReadAndChecked() throws {
        let good = """
            [cpu]
            background_io_weight = 2
            [apps.mail]
            command = "/usr/bin/mail"
            cpu = { foreground_io_weight = 500 }
            """
        let policy = try PolicyLoader.parse(good, file: "cpu.toml")
        #expect(policy.cpu.backgroundIOWeight == 2 && policy.cpu.foregroundIOWeight == 1000)
        let mail = try #require(policy.app(named: "mail")?.cpu)
        #expect(mail.foregroundIOWeight == 500 && mail.backgroundIOWeight == 2)
        let bad = """
            [cpu]
            foreground_io_weight = 10001
            [apps.mail]
            command = "/usr/bin/mail"
            cpu = { foreground_io_weight = 5, background_io_weight = 6 }
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: bad, file: "cpu.toml")
        #expect(diagnostics.map(\.line) == [2, 5])
        #expect(
            diagnostics.first?.message
                == "key \"cpu.foreground_io_weight\" must be a whole number from 1 to 10000, such as 1000.")
        #expect(
            diagnostics.last?.message
                == "background_io_weight (6) must be at most foreground_io_weight (5): the foreground is served first.")
        let lower = try PolicyLoader.parse(
            "[cpu]\nforeground_io_weight = 50\nbackground_io_weight = 5\n", file: "cpu.toml")
        #expect(CPUSettings().activityIOWeight == 100 && lower.cpu.activityIOWeight == 50)
        let above = PolicyFixtures.diagnostics(
            parsing: "[cpu]\nforeground_io_weight = 50\nactivity_io_weight = 60\n", file: "cpu.toml")
        #expect(
            above.map(\.message) == [
                "activity_io_weight (60) must be at most foreground_io_weight (50): the foreground is served first."
            ])
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
