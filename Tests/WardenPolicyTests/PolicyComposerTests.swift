import Testing
import WardenCore
import WardenPolicy

/// Composing a policy from layers, as the simulator does for scenario files.
@Suite struct PolicyComposerTests {
    private let basePolicy = """
        [memory]
        critical_enter = "5%"
        kill_foreground = true

        [apps.mail]
        command = "/usr/bin/mail"
        background_modes = ["fetch"]
        fetch_interval = "15m"
        """

    private let scenario = """
        [scenario]
        name = "layers"

        [policy.memory]
        kill_foreground = false

        [policy.fetch]
        window = "10s"

        [policy.resources.camera]
        paths = ["/dev/video0"]

        [apps.mail]
        footprint = "150MiB"
        fetch_interval = "30m"

        [apps.camera]
        resources = ["camera"]
        footprint = "300MiB"
        on_fetch = "never"
        """

    private static let facts: Set<String> = ["footprint", "on_fetch", "on_push", "on_expiration", "launch_time"]

    /// The scenario's [policy] tables override the base key by key, its apps merge onto the
    /// base's apps, new apps need no command, and simulation facts come back located per app.
    @Test func scenarioLayersOverrideAndMerge() throws {
        let base = try LocatedDocument(text: basePolicy, file: "base.toml")
        let document = try LocatedDocument(text: scenario, file: "scenario.toml", label: "Scenario")
        let (policy, facts) = try PolicyComposer.compose(
            base: base, overrides: document.root["policy"]?.table, apps: document.root["apps"]?.table,
            commandRequired: false, extraAppKeys: Self.facts, label: "Scenario")

        #expect(policy.memory.killForeground == false)
        #expect(policy.memory.criticalEnter == .percent(5))
        #expect(policy.settings.fetch.window == .seconds(10))
        #expect(policy.resources["camera"]?.paths == ["/dev/video0"])
        #expect(policy.apps.map(\.name) == ["mail", "camera"])
        let mail = try #require(policy.app(named: "mail"))
        #expect(mail.command == "/usr/bin/mail")
        #expect(mail.backgroundModes == [.fetch])
        #expect(mail.fetchInterval == .every(.seconds(1800)))
        #expect(mail.settings.fetch.window == .seconds(10))
        #expect(policy.app(named: "camera")?.command == nil)
        #expect(facts["mail"]?["footprint"]?.string == "150MiB")
        #expect(facts["mail"]?["footprint"]?.line == 14)
        #expect(facts["mail"]?["footprint"]?.file == "scenario.toml")
        #expect(facts["camera"]?.keys.sorted() == ["footprint", "on_fetch"])
    }

    /// Without a base, the policy is all defaults plus the scenario's apps.
    @Test func noBaseMeansDefaultsAndScenarioApps() throws {
        let document = try LocatedDocument(
            text: "[apps.solo]\nfootprint = \"1MiB\"\n", file: "s.toml", label: "Scenario")
        let (policy, facts) = try PolicyComposer.compose(
            base: nil, overrides: nil, apps: document.root["apps"]?.table, commandRequired: false,
            extraAppKeys: Self.facts, label: "Scenario")
        #expect(policy.apps == [AppPolicy(name: "solo")])
        #expect(policy.settings == TimingSettings())
        #expect(facts["solo"]?["footprint"]?.line == 2)
    }

    /// Errors name their own file: the base's with "Policy", the scenario's with "Scenario";
    /// facts the caller did not list are unknown keys, and a required command is enforced.
    @Test func errorsNameTheirOwnFileAndLabel() throws {
        let base = try LocatedDocument(text: "[fetch]\nwindow = \"soon\"\n", file: "base.toml")
        let document = try LocatedDocument(
            text: """
                [policy.memory]
                warning_exit = "1%"

                [apps.mail]
                footprnt = "1MiB"
                """,
            file: "scenario.toml", label: "Scenario")
        do {
            _ = try PolicyComposer.compose(
                base: base, overrides: document.root["policy"]?.table, apps: document.root["apps"]?.table,
                commandRequired: true, extraAppKeys: Self.facts, label: "Scenario")
            Issue.record("The composition was accepted.")
        } catch {
            #expect(
                error.diagnostics.map(\.description) == [
                    #"Policy "base.toml", line 2: key "fetch.window" must be a duration such as "30s"."#,
                    #"Scenario "scenario.toml", line 2: key "policy.memory.warning_exit" is 1% but must be at least warning_enter (15%): the warning level ends only once available memory is back at or above its exit threshold."#,
                    #"Scenario "scenario.toml", line 4: app "mail" has no command; every app in a policy file needs the program to run, such as command = "/usr/bin/mail"."#,
                    #"Scenario "scenario.toml", line 5: key "apps.mail.footprnt" is unknown; did you mean "apps.mail.footprint"?"#,
                ])
        }
    }

    /// Loading a policy file goes through the same validation as composing one.
    @Test func loaderAndComposerAgree() throws {
        let base = try LocatedDocument(text: basePolicy, file: "base.toml")
        let composed = try PolicyComposer.compose(
            base: base, overrides: nil, apps: nil, commandRequired: true, extraAppKeys: [], label: "Policy")
        #expect(composed.policy == (try PolicyLoader.parse(basePolicy, file: "base.toml")))
        #expect(composed.appFacts.isEmpty)
    }
}
