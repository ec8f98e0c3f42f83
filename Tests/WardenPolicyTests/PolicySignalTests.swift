import Foundation
import Testing
import WardenCore
import WardenPolicy

/// The `signals` key of an app: message kinds mapped to the signals sent along with them.
@Suite struct PolicySignalTests {
    /// Each mapped kind holds the Linux number of its signal, written with or without "SIG".
    @Test func mappedKindsHoldTheirSignalNumbers() throws {
        let text = """
            [apps.legacy]
            command = "/usr/bin/legacy"
            signals = { save_state = "SIGUSR1", memory_warning = "USR2", expiration_warning = "SIGTERM" }
            [apps.quiet]
            command = "/usr/bin/quiet"
            """
        let policy = try PolicyLoader.parse(text, file: "signals.toml")
        #expect(
            policy.app(named: "legacy")?.signals == ["save_state": 10, "memory_warning": 12, "expiration_warning": 15])
        #expect(policy.app(named: "quiet")?.signals == [:])
    }

    /// A `[apps.NAME.signals]` sub-table reads the same as an inline table.
    @Test func aSignalsSubTableReadsLikeAnInlineTable() throws {
        let text = """
            [apps.legacy]
            command = "/usr/bin/legacy"
            [apps.legacy.signals]
            fetch_start = "SIGHUP"
            push_payload = "SIGUSR2"
            """
        let policy = try PolicyLoader.parse(text, file: "signals.toml")
        #expect(policy.app(named: "legacy")?.signals == ["fetch_start": 1, "push_payload": 12])
    }

    /// An unknown message kind is an error at its line that lists the known kinds.
    @Test func anUnknownKindIsAnErrorListingTheKnownKinds() throws {
        let text = """
            [apps.legacy]
            command = "/usr/bin/legacy"
            [apps.legacy.signals]
            save_sate = "SIGUSR1"
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "signals.toml")
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.file == "signals.toml")
        #expect(diagnostic.line == 4)
        #expect(diagnostic.key == "apps.legacy.signals.save_sate")
        #expect(
            diagnostic.message
                == #"key "apps.legacy.signals.save_sate" names an unknown message kind "save_sate" (did you mean "save_state"?); the known kinds are "expiration_warning", "fetch_start", "push_payload", "accessory_event", "memory_warning", "cpu_warning", "activities_ended" and "save_state"."#
        )
    }

    /// An unknown signal, or one that cannot be caught such as SIGKILL, is an error that lists the known signals.
    @Test func anUnknownSignalIsAnErrorListingTheKnownSignals() throws {
        let text = """
            [apps.legacy]
            command = "/usr/bin/legacy"
            signals = { save_state = "SIGKILL" }
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "signals.toml")
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.line == 3)
        #expect(diagnostic.key == "apps.legacy.signals.save_state")
        #expect(
            diagnostic.message.hasPrefix(#"key "apps.legacy.signals.save_state" names an unknown signal "SIGKILL""#))
        #expect(diagnostic.message.contains(#"the known signals are "SIGHUP", "SIGINT""#))
        #expect(diagnostic.message.contains(#""SIGUSR1""#))
    }

    /// A misspelt signal gets a suggestion; a value that is not text and a `signals` that is not a table are errors too.
    @Test func misspeltSignalsAndWrongTypesAreErrors() throws {
        let text = """
            [apps.legacy]
            command = "/usr/bin/legacy"
            signals = { save_state = "SIGUSR3", fetch_start = 10 }
            [apps.other]
            command = "/usr/bin/other"
            signals = "SIGUSR1"
            """
        let messages = PolicyFixtures.diagnostics(parsing: text, file: "signals.toml").map(\.message)
        #expect(messages.count == 3)
        #expect(messages.contains { $0.contains(#"unknown signal "SIGUSR3" (did you mean "SIGUSR1"?)"#) })
        #expect(messages.contains(#"key "apps.legacy.signals.fetch_start" must be a signal name such as "SIGUSR1"."#))
        #expect(
            messages.contains(
                #"key "apps.other.signals" must be a table from message kinds to signal names such as { save_state = "SIGUSR1" }."#
            ))
    }

    /// The example of the policy reference reads as documented.
    @Test func theReferenceExampleMapsSaveStateAndExpirationWarning() throws {
        let reference = try String(contentsOfFile: PolicyFixtures.shippedPolicy("README.md"), encoding: .utf8)
        let blocks = reference.components(separatedBy: "```toml\n").dropFirst().map {
            $0.components(separatedBy: "```").first ?? ""
        }
        let example = try #require(blocks.first { $0.contains("signals = ") })
        let policy = try PolicyLoader.parse(example, file: "README.md")
        #expect(policy.app(named: "logger")?.signals == ["save_state": 10, "expiration_warning": 12])
    }
}
