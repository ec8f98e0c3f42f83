import Foundation
import Testing
import WardenCore

@testable import WardenPolicy

/// Reading valid policies: defaults, every key, app overrides, the shipped files.
@Suite struct PolicyLoaderTests {
    /// An empty file is the default policy with no apps.
    @Test func emptyFileIsTheDefaultPolicy() throws {
        #expect(try PolicyLoader.parse("", file: "empty.toml") == Policy())
    }

    /// The shipped default.toml writes every global setting at its default value.
    @Test func shippedDefaultPolicyRoundTripsTheDefaults() throws {
        let policy = try PolicyLoader.load(path: PolicyFixtures.shippedPolicy("default.toml"))
        #expect(policy == Policy())
    }

    /// The shipped default.toml names every global key that has a default, in its section, so
    /// that a new setting cannot be left out of it.
    @Test func shippedDefaultPolicyNamesEveryGlobalKey() throws {
        let text = try String(contentsOfFile: PolicyFixtures.shippedPolicy("default.toml"), encoding: .utf8)
        var keysBySection: [String: Set<String>] = [:]
        var section = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("[") {
                section = String(line.dropFirst().prefix { $0 != "]" })
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                keysBySection[section, default: []].insert(line[..<equals].trimmingCharacters(in: .whitespaces))
            }
        }
        var expected: [String: [String]] = [
            "": ["foreground_slots"], "memory": PolicyValidator.memoryKeys, "limits": PolicyValidator.limitKeys,
            "journal": PolicyValidator.journalKeys, "logs": PolicyValidator.logKeys,
            // on_kill and on_pressure have no default: they are commented out.
            "hooks": PolicyValidator.hookKeys.filter { !$0.hasPrefix("on_") },
        ]
        for timing in PolicyValidator.timingSections { expected[timing] = PolicyValidator.keys(ofSection: timing) }
        for (name, keys) in expected {
            for key in keys {
                #expect(keysBySection[name]?.contains(key) == true, "default.toml leaves out [\(name)] \(key)")
            }
        }
    }

    /// Policy durations accept the compound forms the trace prints.
    @Test func compoundDurationsAreAcceptedInPolicies() throws {
        let text = """
            [background]
            task_budget = "15m5s"
            [fetch]
            maximum_interval = "2h0m5s"
            minimum_interval = "1.5m"
            """
        let policy = try PolicyLoader.parse(text, file: "compound.toml")
        #expect(policy.settings.background.taskBudget == .seconds(905))
        #expect(policy.settings.fetch.maximumInterval == .seconds(7205))
        #expect(policy.settings.fetch.minimumInterval == .seconds(90))
    }

    /// `[background] wake_after_system_termination` defaults to false and can be set globally or per app.
    @Test func wakeAfterSystemTerminationIsReadGloballyAndPerApp() throws {
        #expect(Policy().settings.background.wakeAfterSystemTermination == false)
        let text = """
            [background]
            wake_after_system_termination = true
            [apps.mail]
            command = "/bin/true"
            [apps.mail.background]
            wake_after_system_termination = false
            """
        let policy = try PolicyLoader.parse(text, file: "wake.toml")
        #expect(policy.settings.background.wakeAfterSystemTermination == true)
        #expect(policy.app(named: "mail")?.settings.background.wakeAfterSystemTermination == false)
    }

    /// An iOS background mode appwarden does not implement is refused, naming the accepted ones.
    @Test func unsupportedBackgroundModesAreRefused() {
        let text = """
            [apps.phone]
            command = "/bin/true"
            background_modes = ["fetch", "voip"]
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "modes.toml")
        #expect(
            diagnostics.map(\.description) == [
                #"Policy "modes.toml", line 3: key "apps.phone.background_modes" names the background mode "voip", which appwarden does not support; the accepted modes are "fetch", "remote-notification", "audio", "location" and "long-work" (background tasks need no mode)."#
            ])
    }

    /// The continuous modes are accepted, and `max_activities` and `activity_weight` set their
    /// fields, globally and for one app.
    @Test func continuousModesAndTheirSettingsAreRead() throws {
        let text = """
            [background]
            max_activities = 2
            activity_limit = "1h"
            [cpu]
            activity_weight = 200
            [apps.music]
            command = "/bin/true"
            background_modes = ["audio", "location", "long-work"]
            [apps.music.background]
            max_activities = 3
            [apps.mail]
            command = "/bin/true"
            [apps.mail.background]
            max_activities = "none"
            activity_limit = "none"
            """
        let policy = try PolicyLoader.parse(text, file: "activities.toml")
        #expect(policy.app(named: "music")?.backgroundModes == [.audio, .location, .longWork])
        #expect(policy.settings.background.maxActivities == 2)
        #expect(policy.app(named: "music")?.settings.background.maxActivities == 3)
        #expect(policy.app(named: "mail")?.settings.background.maxActivities == nil)
        #expect(policy.settings.background.activityLimit == .seconds(3600))
        #expect(policy.app(named: "music")?.settings.background.activityLimit == .seconds(3600))
        #expect(policy.app(named: "mail")?.settings.background.activityLimit == nil)
        #expect(policy.cpu.activityWeight == 200)
        let refused = PolicyFixtures.diagnostics(
            parsing: "[background]\nmax_activities = 0\nactivity_limit = \"soon\"\n[cpu]\nactivity_weight = 10001\n",
            file: "bad.toml")
        #expect(
            refused.map(\.description) == [
                #"Policy "bad.toml", line 2: key "background.max_activities" must be an integer of at least 1, such as 2, or "none"."#,
                #"Policy "bad.toml", line 3: key "background.activity_limit" must be a duration such as "1h", or "none"."#,
                #"Policy "bad.toml", line 5: key "cpu.activity_weight" must be a whole number from 1 to 10000, such as 100."#,
            ])
    }

    /// Every global key lands in its field of the policy model.
    @Test func everyGlobalKeySetsItsField() throws {
        let text = """
            foreground_slots = 2
            [background]
            grace = "7s"
            task_budget = "3m"
            expiration_warning = "10s"
            [fetch]
            window = "20s"
            coalesce = "2m"
            minimum_interval = "5m"
            maximum_interval = "2h"
            [push]
            window = "15s"
            max_per_hour = 6
            max_payload_bytes = "2KiB"
            [memory]
            warning_enter = "300MiB"
            warning_exit = "400MiB"
            critical_enter = "100MiB"
            critical_exit = "200MiB"
            kill_foreground = false
            warning_interval = "1m"
            foreground_limit = "60%"
            background_limit = "256MiB"
            fair_share = "none"
            [watchdog]
            interval = "2m"
            [termination]
            grace = "3s"
            [launch]
            timeout = "8s"
            [restoration]
            crash_window = "1500ms"
            [resources.camera]
            paths = ["/dev/video0"]
            description = "Camera"
            """
        let policy = try PolicyLoader.parse(text, file: "all.toml")
        let settings = TimingSettings(
            background: BackgroundSettings(
                grace: .seconds(7), taskBudget: .seconds(180), expirationWarning: .seconds(10)),
            fetch: FetchSettings(
                window: .seconds(20), coalesce: .seconds(120), minimumInterval: .seconds(300),
                maximumInterval: .seconds(7200)),
            push: PushSettings(window: .seconds(15), maxPerHour: 6, maxPayloadBytes: 2048),
            watchdog: WatchdogSettings(interval: .seconds(120)),
            termination: TerminationSettings(grace: .seconds(3)),
            launch: LaunchSettings(timeout: .seconds(8)),
            restoration: RestorationSettings(crashWindow: .milliseconds(1500)),
            memoryWarningInterval: .seconds(60)
        )
        let memory = MemorySettings(
            warningEnter: .bytes(300 << 20), warningExit: .bytes(400 << 20), criticalEnter: .bytes(100 << 20),
            criticalExit: .bytes(200 << 20), killForeground: false, foregroundLimit: .percent(60),
            backgroundLimit: .bytes(256 << 20), fairShare: nil)
        let expected = Policy(
            foregroundSlots: 2, settings: settings, memory: memory,
            resources: ["camera": ResourceDeclaration(name: "camera", paths: ["/dev/video0"], description: "Camera")])
        #expect(policy == expected)
    }

    /// Every app key lands in its field, in file order of the apps.
    @Test func everyAppKeySetsItsField() throws {
        let text = """
            [resources.camera]
            [apps.zeta]
            command = "/usr/bin/zeta"
            [apps.alpha]
            command = "/usr/bin/alpha"
            args = ["--a", "b"]
            env = { LANG = "C.UTF-8", MODE = "fast" }
            working_directory = "/var/lib/alpha"
            user = 1000
            background_modes = ["fetch", "remote-notification"]
            fetch_interval = "minimum"
            background_refresh = false
            protected = true
            readiness = "notify"
            status_source = "reported"
            memory_max = "1GiB"
            memory_high = "768MiB"
            resources = ["camera"]
            """
        let policy = try PolicyLoader.parse(text, file: "apps.toml")
        #expect(policy.apps.map(\.name) == ["zeta", "alpha"])
        let expected = AppPolicy(
            name: "alpha", command: "/usr/bin/alpha", args: ["--a", "b"], env: ["LANG": "C.UTF-8", "MODE": "fast"],
            workingDirectory: "/var/lib/alpha", user: "1000", backgroundModes: [.fetch, .remoteNotification],
            fetchInterval: .minimum, backgroundRefresh: false, isProtected: true, readiness: .notify,
            statusSource: .reported, memoryMax: 1 << 30, memoryHigh: 768 << 20, resources: ["camera"])
        #expect(policy.app(named: "alpha") == expected)
    }

    /// An app's own timing tables override the global settings for that app only; the
    /// others inherit the global values.
    @Test func appOverridesResolveOverGlobalSettings() throws {
        let text = """
            [fetch]
            window = "20s"
            [memory]
            warning_interval = "1m"
            [apps.mail]
            command = "/usr/bin/mail"
            [apps.mail.fetch]
            window = "10s"
            [apps.mail.memory]
            warning_interval = "2m"
            [apps.mail.background]
            task_budget = "3m"
            [apps.maps]
            command = "/usr/bin/maps"
            """
        let policy = try PolicyLoader.parse(text, file: "overrides.toml")
        let mail = try #require(policy.app(named: "mail"))
        let maps = try #require(policy.app(named: "maps"))
        #expect(mail.settings.fetch.window == .seconds(10))
        #expect(mail.settings.memoryWarningInterval == .seconds(120))
        #expect(mail.settings.background.taskBudget == .seconds(180))
        #expect(mail.settings.fetch.coalesce == .seconds(60))
        #expect(maps.settings.fetch.window == .seconds(20))
        #expect(maps.settings.memoryWarningInterval == .seconds(60))
        #expect(maps.settings.background.taskBudget == .seconds(600))
        #expect(policy.settings.fetch.window == .seconds(20))
    }

    /// An app override that breaks a rule between settings is reported at the app's key.
    @Test func appOverrideBreakingARuleIsReportedAtTheAppKey() {
        let text = """
            [apps.mail]
            command = "/usr/bin/mail"
            [apps.mail.background]
            expiration_warning = "20m"
            """
        let diagnostics = PolicyFixtures.diagnostics(parsing: text, file: "rule.toml")
        #expect(
            diagnostics.map(\.description) == [
                #"Policy "rule.toml", line 4: key "apps.mail.background.expiration_warning" is 20m but must be shorter than task_budget (10m), so that open tasks are warned before the budget ends."#
            ])
    }

    /// The shipped demo policy is valid and declares the six demo apps.
    @Test func shippedDemoPolicyIsValid() throws {
        let policy = try PolicyLoader.load(path: PolicyFixtures.shippedPolicy("demo.toml"))
        #expect(policy.apps.map(\.name) == ["launcher", "mail", "chat", "maps", "camera", "music"])
        #expect(policy.app(named: "launcher")?.isProtected == true)
        #expect(policy.app(named: "mail")?.fetchInterval == .every(.seconds(900)))
        #expect(policy.app(named: "chat")?.backgroundModes == [.remoteNotification])
        #expect(policy.app(named: "camera")?.resources == ["camera"])
        #expect(policy.app(named: "music")?.backgroundModes == [])
        #expect(policy.resources["camera"]?.paths == ["/tmp/appwarden-demo/camera.lock"])
        #expect(policy.apps.allSatisfy { $0.command == "ballast" })
    }
}

/// The per-app memory bounds of `[apps.NAME.memory]` and their errors.
@Suite struct PolicyMemoryBoundsTests {
    /// An app's own bounds override the global ones; unset ones stay nil (the global applies).
    @Test func anAppsOwnBoundsAreRead() throws {
        let policy = try PolicyLoader.parse(
            """
            [memory]
            background_limit = "200MiB"
            [apps.maps]
            command = "/usr/bin/maps"
            memory_max = "1GiB"
            [apps.maps.memory]
            background_limit = "300MiB"
            fair_share = "60%"
            warning_interval = "1m"
            """, file: "bounds.toml")
        let maps = try #require(policy.app(named: "maps"))
        #expect(maps.memory == AppMemoryOverrides(backgroundLimit: .bytes(300 << 20), fairShare: .percent(60)))
        #expect(maps.settings.memoryWarningInterval == .seconds(60))
        #expect(policy.memory.backgroundLimit == .bytes(200 << 20))
        #expect(policy.memory.fairShare == MemorySettings.defaultFairShare)
    }

    /// A bound of zero, a word other than "none", and "none" for one app are refused, each with
    /// its file, line and key.
    @Test func badBoundsAreRefusedWithTheirKeys() {
        let text = """
            [memory]
            foreground_limit = "0MiB"
            fair_share = "half"
            [apps.maps]
            command = "/usr/bin/maps"
            [apps.maps.memory]
            background_limit = "none"
            critical_enter = "5%"
            """
        #expect {
            _ = try PolicyLoader.parse(text, file: "bounds.toml")
        } throws: { error in
            let text = "\(error)"
            return text.contains(
                #"Policy "bounds.toml", line 2: key "memory.foreground_limit" must be greater than zero, such as "300MiB" or "40%", or "none" for no bound."#
            )
                && text.contains(#"line 3: key "memory.fair_share" must be a size such as "512MiB" or a percentage"#)
                && text.contains(#"line 7: key "apps.maps.memory.background_limit" must be a size such as "512MiB""#)
                && text.contains(#"line 8: key "apps.maps.memory.critical_enter" cannot be set for one app"#)
        }
    }
}
