import Testing
import WardenCore
import WardenPolicy

/// `[limits]`, `tasks_max`, `[journal]` and `[logs]`: the bounds on what apps and the daemon keep.
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

    /// A push payload may be allowed up to the control API's largest body, 64 KiB, and no more:
    /// a larger one could never arrive.
    @Test func aPushPayloadLimitStaysWithinWhatTheControlAPITakes() throws {
        let largest = try PolicyLoader.parse("[push]\nmax_payload_bytes = \"64KiB\"\n", file: "push.toml")
        #expect(largest.settings.push.maxPayloadBytes == 65_536)
        let text = """
            [push]
            max_payload_bytes = 65537
            [apps.mail]
            command = "/usr/bin/mail"
            push.max_payload_bytes = "1MiB"
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "push.toml")
        #expect(diagnostics.map(\.line) == [2, 5])
        #expect(
            diagnostics.first?.description
                == #"Policy "push.toml", line 2: key "push.max_payload_bytes" must be at most 64KiB (65536 bytes): a push is one request of the control API, whose body is at most that long."#
        )
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

    /// `[memory] victim_exit_wait` is 1s unless set; "0s" turns the wait off; a wait that is not a
    /// duration, or longer than 10s, is refused at its line with the range.
    @Test func victimExitWaitIsReadAndBounded() throws {
        #expect(try PolicyLoader.parse("", file: "wait.toml").memory.victimExitWait == .seconds(1))
        let off = try PolicyLoader.parse("[memory]\nvictim_exit_wait = \"0s\"\n", file: "wait.toml")
        #expect(off.memory.victimExitWait == .zero)
        let long = try PolicyLoader.parse("[memory]\nvictim_exit_wait = \"2500ms\"\n", file: "wait.toml")
        #expect(long.memory.victimExitWait == .milliseconds(2500))
        for bad in ["\"11s\"", "\"soon\"", "3"] {
            let diagnostics = PolicyFixtures.diagnostics(
                parsing: "[memory]\nvictim_exit_wait = \(bad)\n", file: "wait.toml")
            #expect(diagnostics.map(\.line) == [2])
            #expect(
                diagnostics.map(\.message) == [
                    "key \"memory.victim_exit_wait\" must be a duration from \"0s\" (no wait) to \"10s\", such as \"1s\"."
                ])
        }
    }

    /// `[memory] kill_order` is "largest" unless set; "least_missed" chooses the second order;
    /// any other value is refused at its line with the values allowed.
    @Test func killOrderIsReadAndRefusedWhenUnknown() throws {
        #expect(try PolicyLoader.parse("", file: "order.toml").memory.killOrder == .largest)
        let largest = try PolicyLoader.parse("[memory]\nkill_order = \"largest\"\n", file: "order.toml")
        #expect(largest.memory.killOrder == .largest)
        let missed = try PolicyLoader.parse("[memory]\nkill_order = \"least_missed\"\n", file: "order.toml")
        #expect(missed.memory.killOrder == .leastMissed)
        for bad in ["\"smallest\"", "\"Least_Missed\"", "2"] {
            let diagnostics = PolicyFixtures.diagnostics(
                parsing: "[memory]\nkill_order = \(bad)\n", file: "order.toml")
            #expect(diagnostics.map(\.line) == [2])
            #expect(
                diagnostics.map(\.message) == [
                    "key \"memory.kill_order\" must be \"largest\" or \"least_missed\"."
                ])
        }
    }

    /// `[memory] stall_before_kill` is 20% unless set; "none" turns it off; anything but a
    /// percentage above 0% and at most 100% is refused at its line.
    @Test func stallBeforeKillIsReadAndBounded() throws {
        #expect(try PolicyLoader.parse("", file: "stall.toml").memory.stallBeforeKill == 20)
        let off = try PolicyLoader.parse("[memory]\nstall_before_kill = \"none\"\n", file: "stall.toml")
        #expect(off.memory.stallBeforeKill == nil)
        let set = try PolicyLoader.parse("[memory]\nstall_before_kill = \"25%\"\n", file: "stall.toml")
        #expect(set.memory.stallBeforeKill == 25)
        for bad in ["\"0%\"", "\"often\"", "10"] {
            let diagnostics = PolicyFixtures.diagnostics(
                parsing: "[memory]\nstall_before_kill = \(bad)\n", file: "stall.toml")
            #expect(diagnostics.map(\.line) == [2])
            #expect(
                diagnostics.map(\.message) == [
                    "key \"memory.stall_before_kill\" must be a percentage of time above 0% and at most 100%, such as \"20%\", or \"none\"."
                ])
        }
    }

    /// A misspelt key in a new section gets a suggestion.
    @Test func unknownBoundKeysSuggestTheKnownOnes() throws {
        let diagnostics = PolicyFixtures.diagnostics(parsing: "[limits]\ntask_max = 10\n", file: "bounds.toml")
        #expect(
            diagnostics.map(\.message) == ["key \"limits.task_max\" is unknown; did you mean \"limits.tasks_max\"?"])
    }

    /// App logs rotate at 1 MiB keeping 3 files unless `[logs]` says otherwise; bad values are
    /// errors at their lines.
    @Test func logRotationHasDefaultsAndIsValidated() throws {
        #expect(try PolicyLoader.parse("", file: "logs.toml").logs == AppLogSettings(maxSize: 1 << 20, keep: 3))
        let set = try PolicyLoader.parse("[logs]\nmax_size = \"256KiB\"\nkeep = 5\n", file: "logs.toml")
        #expect(set.logs == AppLogSettings(maxSize: 256 << 10, keep: 5))
        let diagnostics = PolicyFixtures.diagnostics(
            parsing: "[logs]\nmax_size = \"1KiB\"\nkeep = 0\n", file: "logs.toml")
        #expect(diagnostics.map(\.key) == ["logs.max_size", "logs.keep"])
        #expect(diagnostics.first?.message == "key \"logs.max_size\" must be at least 4KiB, such as \"1MiB\".")
        #expect(diagnostics.last?.message == "key \"logs.keep\" must be a whole number from 1 to 100, such as 3.")
    }
}
