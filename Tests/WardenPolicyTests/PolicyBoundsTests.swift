import Testing
import WardenCore
import WardenPolicy

/// `[limits]`, `tasks_max` and `[journal]`: the bounds on what apps and the daemon keep.
struct PolicyBoundsTests {
    /// Without the new sections every app's task limit is 512 and the journal keeps 30 days.
    @Test func boundsHaveTheirDefaults() throws {
        let policy = try PolicyLoader.parse("[apps.mail]\ncommand = \"/usr/bin/mail\"\n", file: "bounds.toml")
        #expect(policy.limits.tasksMax == .count(512))
        #expect(policy.app(named: "mail")?.tasksMax == .count(512))
        #expect(policy.journal == JournalRetention(keep: .seconds(30 * 86_400), maxEntries: nil))
    }

    /// The global task limit applies to every app that does not set its own; an app may lift it with "max".
    @Test func anAppOverridesTheGlobalTaskLimit() throws {
        let text = """
            [limits]
            tasks_max = 64
            [journal]
            keep = "7d"
            max_entries = 5000
            [apps.mail]
            command = "/usr/bin/mail"
            [apps.build]
            command = "/usr/bin/make"
            tasks_max = "max"
            [apps.tiny]
            command = "/usr/bin/tiny"
            tasks_max = 8
            """
        let policy = try PolicyLoader.parse(text, file: "bounds.toml")
        #expect(policy.app(named: "mail")?.tasksMax == .count(64))
        #expect(policy.app(named: "build")?.tasksMax == .unlimited)
        #expect(policy.app(named: "tiny")?.tasksMax == .count(8))
        #expect(policy.journal == JournalRetention(keep: .seconds(7 * 86_400), maxEntries: 5000))
    }

    /// "forever" turns the age bound off, so the journal keeps everything unless max_entries says otherwise.
    @Test func journalRetentionCanBeTurnedOff() throws {
        let policy = try PolicyLoader.parse("[journal]\nkeep = \"forever\"\n", file: "bounds.toml")
        #expect(policy.journal.keep == nil)
        #expect(!policy.journal.isBounded)
    }

    /// Bad values are refused, each at its line and key with what is expected.
    @Test func badBoundsAreErrorsAtTheirLines() throws {
        let text = """
            [limits]
            tasks_max = 0
            [journal]
            keep = "soon"
            max_entries = 0
            [apps.mail]
            command = "/usr/bin/mail"
            tasks_max = 5000000
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "bounds.toml")
        #expect(diagnostics.map(\.line) == [2, 4, 5, 8])
        #expect(
            diagnostics.map(\.key) == [
                "limits.tasks_max", "journal.keep", "journal.max_entries", "apps.mail.tasks_max",
            ])
        #expect(
            diagnostics.first?.message
                == "key \"limits.tasks_max\" must be a whole number from 1 to 4194304, such as 512, or \"max\" for no limit."
        )
        #expect(diagnostics[1].message.contains("such as \"30d\""))
        #expect(diagnostics.last?.message.contains("from 1 to 4194304") == true)
    }

    /// A misspelt key in a new section gets a suggestion.
    @Test func unknownBoundKeysSuggestTheKnownOnes() throws {
        let diagnostics = PolicyFixtures.diagnostics(parsing: "[limits]\ntask_max = 10\n", file: "bounds.toml")
        #expect(
            diagnostics.map(\.message) == ["key \"limits.task_max\" is unknown; did you mean \"limits.tasks_max\"?"])
    }
}
