import Testing
import WardenCore
import WardenPolicy

/// Broken policy files under `Tests/Policies`: every error is reported with its file, line,
/// key and sentence.
@Suite struct PolicyCheckTests {
    /// Misspelt keys get a "did you mean"; keys far from any known one list what the table takes.
    @Test func unknownKeysAreReportedWithSuggestions() throws {
        let descriptions = try PolicyFixtures.descriptions(ofBrokenPolicy: "unknown-keys.toml")
        #expect(
            descriptions == [
                #"Policy "unknown-keys.toml", line 1: key "foreground_slot" is unknown; did you mean "foreground_slots"?"#,
                #"Policy "unknown-keys.toml", line 4: key "fetch.windw" is unknown; did you mean "fetch.window"?"#,
                #"Policy "unknown-keys.toml", line 8: key "apps.mail.fetch_intervall" is unknown; did you mean "apps.mail.fetch_interval"?"#,
                #"Policy "unknown-keys.toml", line 9: key "apps.mail.colour" is unknown; an app table takes command, args, env, working_directory, user, background_modes, fetch_interval, background_refresh, protected, readiness, status_source, memory_max, memory_high, resources, signals, tasks_max, accessories, background, fetch, push, watchdog, termination, launch, restoration, memory and cpu."#,
                #"Policy "unknown-keys.toml", line 11: key "memmory" is unknown; did you mean "memory"?"#,
            ])
    }

    /// Wrong types, unparsable durations and sizes, zero or negative values and percentages
    /// above 100 are each reported at their own line, all of them.
    @Test func badValuesAreAllReported() throws {
        let descriptions = try PolicyFixtures.descriptions(ofBrokenPolicy: "bad-values.toml")
        #expect(
            descriptions == [
                #"Policy "bad-values.toml", line 1: key "foreground_slots" must be an integer of at least 1, such as 1."#,
                #"Policy "bad-values.toml", line 4: key "background.grace" must be a duration such as "5s"."#,
                #"Policy "bad-values.toml", line 5: key "background.task_budget" must be a duration such as "10m"."#,
                #"Policy "bad-values.toml", line 6: key "background.expiration_warning" must be a duration greater than zero, such as "5s"."#,
                #"Policy "bad-values.toml", line 9: key "fetch.window" must be a duration greater than zero, such as "30s"."#,
                #"Policy "bad-values.toml", line 12: key "push.max_per_hour" must be an integer of at least 1, such as 3."#,
                #"Policy "bad-values.toml", line 13: key "push.max_payload_bytes" must be a size such as "4KiB"."#,
                #"Policy "bad-values.toml", line 16: key "memory.warning_enter" must be a percentage between 0% and 100%, not "150%"."#,
                #"Policy "bad-values.toml", line 17: key "memory.kill_foreground" must be true or false."#,
                #"Policy "bad-values.toml", line 18: key "memory.warning_interval" must be a duration such as "30s"."#,
            ])
    }

    /// App tables: missing command, unknown background modes, unknown words, an undeclared
    /// resource, fetch_interval without the fetch mode, limits out of order, device-wide
    /// memory keys set per app and a name that cannot be a directory.
    @Test func appErrorsAreAllReported() throws {
        let descriptions = try PolicyFixtures.descriptions(ofBrokenPolicy: "apps.toml")
        let modes =
            #"the accepted modes are "fetch", "remote-notification", "audio", "location" and "long-work"."#
        #expect(
            descriptions == [
                #"Policy "apps.toml", line 2: key "resources.camera.paths" must hold absolute paths such as "/dev/video0"; "relative/path" is not one."#,
                #"Policy "apps.toml", line 4: app "mail" has no command; every app in a policy file needs the program to run, such as command = "/usr/bin/mail"."#,
                #"Policy "apps.toml", line 5: key "apps.mail.background_modes" names an unknown background mode "remote-notificaton" (did you mean "remote-notification"?); "#
                    + modes,
                #"Policy "apps.toml", line 5: key "apps.mail.background_modes" names an unknown background mode "teleport"; "#
                    + modes,
                #"Policy "apps.toml", line 7: key "apps.mail.readiness" must be "immediate" or "notify"; did you mean "notify"?"#,
                #"Policy "apps.toml", line 11: key "apps.maps.fetch_interval" is set but the app does not have the "fetch" background mode; add "fetch" to background_modes or remove fetch_interval."#,
                #"Policy "apps.toml", line 12: key "apps.maps.resources" names the resource "gps", which is not declared; declare it in a [resources.gps] table."#,
                #"Policy "apps.toml", line 14: key "apps.maps.memory_high" is 512MiB but must be at most memory_max (256MiB)."#,
                #"Policy "apps.toml", line 17: key "apps.maps.memory.warning_enter" cannot be set for one app; only "warning_interval", "foreground_limit", "background_limit", "fair_share" and "compress_suspended" can be set in [apps.maps.memory], the other memory settings apply to the whole device."#,
                #"Policy "apps.toml", line 19: app name "my app" is not valid: use only ASCII letters (a-z, A-Z), digits, "-", "_" and "." (and not "." or ".." alone), because the name becomes a directory name."#,
                #"Policy "apps.toml", line 21: key "apps."my app".status_source" must be "managed" or "reported"."#,
            ])
    }

    /// Exit thresholds below their enter thresholds, a critical level above the warning
    /// level and a task budget shorter than its warning are refused.
    @Test func thresholdsOnTheWrongSideAreReported() throws {
        let descriptions = try PolicyFixtures.descriptions(ofBrokenPolicy: "thresholds.toml")
        #expect(
            descriptions == [
                #"Policy "thresholds.toml", line 3: key "memory.warning_exit" is 15% but must be at least warning_enter (20%): the warning level ends only once available memory is back at or above its exit threshold."#,
                #"Policy "thresholds.toml", line 4: key "memory.critical_enter" is 25% but must be at most warning_enter (20%): critical pressure starts with less available memory than warning does."#,
                #"Policy "thresholds.toml", line 8: key "background.task_budget" is 4s but must be longer than expiration_warning (5s), so that open tasks are warned before the budget ends."#,
            ])
    }

    /// A size and a percentage cannot be compared without the device's memory, so mixed
    /// thresholds are accepted as written.
    @Test func mixedThresholdKindsAreNotCompared() throws {
        let policy = try PolicyLoader.load(path: PolicyFixtures.brokenPolicy("mixed-thresholds.toml"))
        #expect(policy.memory.warningEnter == .bytes(512 << 20))
        #expect(policy.memory.warningExit == .percent(10))
        #expect(policy.memory.criticalExit == .bytes(768 << 20))
    }

    /// An app declared twice is named with the line of its first declaration, a key set twice
    /// likewise, and the rest of the file is still checked.
    @Test func duplicatesAreNamedAndTheRestIsStillChecked() throws {
        let descriptions = try PolicyFixtures.descriptions(ofBrokenPolicy: "duplicate-app.toml")
        #expect(
            descriptions == [
                #"Policy "duplicate-app.toml", line 7: app "mail" is declared twice (first at line 1)."#,
                #"Policy "duplicate-app.toml", line 13: key "fetch.window" is set twice (first at line 12)."#,
                #"Policy "duplicate-app.toml", line 14: key "fetch.coalesce" must be a duration such as "1m"."#,
            ])
    }

    /// A TOML syntax error is reported with its line and no key.
    @Test func syntaxErrorsCarryTheirLine() throws {
        let diagnostics = PolicyFixtures.diagnostics(
            parsing: try PolicyFixtures.text(ofBrokenPolicy: "syntax-error.toml"), file: "syntax-error.toml")
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.line == 4)
        #expect(diagnostics.first?.key == nil)
        #expect(diagnostics.first?.message.hasPrefix("the file is not valid TOML: ") == true)
        #expect(diagnostics.first?.description.hasPrefix(#"Policy "syntax-error.toml", line 4: "#) == true)
    }

    /// Each diagnostic carries the file as it was named, the line and the full dotted key.
    @Test func diagnosticsCarryFileLineAndKey() throws {
        let path = PolicyFixtures.brokenPolicy("unknown-keys.toml")
        do {
            _ = try PolicyLoader.load(path: path)
            Issue.record("The policy was accepted.")
        } catch {
            let fetch = error.diagnostics.first { $0.key == "fetch.windw" }
            #expect(fetch?.file == path)
            #expect(fetch?.line == 4)
            #expect(fetch?.label == "Policy")
        }
    }

    /// A file that does not exist is refused with a sentence naming it.
    @Test func missingFileIsReported() {
        do {
            _ = try PolicyLoader.load(path: "/nonexistent/appwarden.toml")
            Issue.record("A missing file was accepted.")
        } catch {
            #expect(error.description == #"Policy "/nonexistent/appwarden.toml": the file does not exist."#)
        }
    }
}
