import Testing
import WardenCore
import WardenPolicy

/// `[hooks]`: on_kill, on_pressure and their timeout.
struct PolicyHookTests {
    /// Without [hooks] no hook runs and the timeout is 10 s.
    @Test func hooksAreOffByDefault() throws {
        let policy = try PolicyLoader.parse("[apps.mail]\ncommand = \"/usr/bin/mail\"\n", file: "hooks.toml")
        #expect(policy.hooks == HookSettings(onKill: nil, onPressure: nil, timeout: .seconds(10)))
    }

    /// Both commands and the timeout are read as written.
    @Test func hookCommandsAndTimeoutAreRead() throws {
        let text = """
            [hooks]
            on_kill = "/usr/local/bin/notify-kill --quiet"
            on_pressure = "logger -t appwarden \\"pressure $APPWARDEN_LEVEL\\""
            timeout = "2s"
            """
        let policy = try PolicyLoader.parse(text, file: "hooks.toml")
        #expect(policy.hooks.onKill == "/usr/local/bin/notify-kill --quiet")
        #expect(policy.hooks.onPressure == "logger -t appwarden \"pressure $APPWARDEN_LEVEL\"")
        #expect(policy.hooks.timeout == .seconds(2))
    }

    /// Bad values are refused, each at its line and key with what is expected.
    @Test func badHooksAreErrorsAtTheirLines() throws {
        let text = """
            [hooks]
            on_kill = ["notify"]
            on_pressure = "  "
            timeout = "0s"
            on_kil = "x"
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "hooks.toml")
        #expect(diagnostics.map(\.line) == [2, 3, 4, 5])
        let messages = diagnostics.map(\.message)
        #expect(messages[0].contains("must be a command line for /bin/sh"))
        #expect(messages[1].contains("must not be empty; remove the key to run no hook"))
        #expect(messages[2].contains("must be a duration greater than zero"))
        #expect(messages[3].contains("did you mean \"hooks.on_kill\""))
    }

    /// A [hooks] that is not a table is refused with an example.
    @Test func hooksMustBeATable() throws {
        let diagnostics = PolicyFixtures.diagnostics(parsing: "hooks = \"notify\"\n", file: "hooks.toml")
        #expect(diagnostics.map(\.line) == [1])
        #expect(diagnostics.first?.message.contains("must be a table, such as [hooks]") == true)
    }
}
