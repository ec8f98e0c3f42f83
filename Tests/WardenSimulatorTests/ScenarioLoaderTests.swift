import Testing
import WardenCore
import WardenScenario
import WardenSimulator

@Suite struct ScenarioLoaderTests {
    /// Parses a scenario whose apps are mail and maps, with the given steps, one per line from line 4.
    private func load(steps: [String], extra: String = "") throws(ScenarioError) -> Scenario {
        let list = steps.map { "  \"\($0)\"," }.joined(separator: "\n")
        let text = """
            [scenario]
            name = "test"
            steps = [
            \(list)
            ]

            [apps.mail]

            [apps.maps]
            \(extra)
            """
        return try ScenarioLoader.parse(text: text, file: "test.toml")
    }

    private func messages(steps: [String], extra: String = "") -> [String] {
        do {
            _ = try load(steps: steps, extra: extra)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// Step times and `at` times accept the compound forms the trace prints.
    @Test func compoundTimesAreAcceptedInStepsAndExpectations() throws {
        let scenario = try load(
            steps: ["1m30s open mail", "15m5s home", "1h0m5s open maps"],
            extra: """
                [expect]
                at = ["2h0m5s mail suspended"]
                """)
        #expect(scenario.steps.map(\.time.sinceOrigin) == [.seconds(90), .seconds(905), .seconds(3605)])
        #expect(scenario.expectations.states.map(\.time.sinceOrigin) == [.seconds(7205)])
    }

    /// A `refused` entry must end with a known error code; its time is read like a step's.
    @Test func refusedEntriesNeedAKnownCode() throws {
        let scenario = try load(steps: [], extra: "[expect]\nrefused = [\"0.5s open mail conflict\"]")
        #expect(scenario.expectations.refused == ["500ms open mail conflict"])
        let problems = messages(steps: [], extra: "[expect]\nrefused = [\"30s open mail conflit\"]")
        #expect(problems.count == 1)
        #expect(problems.first?.contains("unknown error code \"conflit\"") == true)
    }

    /// Steps parse into verbs, times, indices and lines; equal times keep file order.
    @Test func stepsParseIntoVerbsWithTheirLines() throws {
        let scenario = try load(
            steps: [
                "0s open mail", "1.5s mail begin-task sync", "1.5s home", "2m mail end-task sync", "2m mail end-task 1",
                "250ms footprint maps 300MiB",
            ].enumerated().map { $0.offset == 5 ? "3m footprint maps 300MiB" : $0.element })
        #expect(
            scenario.steps.map(\.verb) == [
                .event(.open(app: "mail")), .event(.beginTask(app: "mail", name: "sync")), .event(.home),
                .endTask(app: "mail", task: .name("sync")), .endTask(app: "mail", task: .id(1)),
                .event(.footprint(app: "maps", bytes: 300 << 20)),
            ])
        #expect(
            scenario.steps.map(\.time.sinceOrigin) == [
                .zero, .milliseconds(1500), .milliseconds(1500), .seconds(120), .seconds(120), .seconds(180),
            ])
        #expect(scenario.steps.map(\.index) == [1, 2, 3, 4, 5, 6])
        #expect(scenario.steps.map(\.line) == [4, 5, 6, 7, 8, 9])
        #expect(scenario.steps[1].text == "1.5s mail begin-task sync")
    }

    /// A push takes everything after the app as its payload; a word that is no app is a device token.
    @Test func pushTakesTheRestAsPayload() throws {
        let scenario = try load(steps: [
            #"0s push mail {\"aps\": {\"content-available\": 1},  \"id\": \"x y\"}"#,
            #"1s push tok-mail-1 {}"#,
        ])
        #expect(
            scenario.steps[0].verb
                == .event(
                    .push(
                        target: .app("mail"), payload: #"{"aps": {"content-available": 1},  "id": "x y"}"#, id: "x y")))
        #expect(scenario.steps[1].verb == .event(.push(target: .token("tok-mail-1"), payload: "{}", id: nil)))
    }

    /// A push to a word that is neither an app nor a device token is refused like an unknown app.
    @Test func pushToAnUnknownAppIsReported() {
        #expect(
            messages(steps: ["0s push mial {}"]) == [
                #"Scenario "test.toml", line 4: step 1 ("0s push mial {}"): unknown app "mial" (did you mean "mail"?); the scenario knows mail, maps (from its policy and its [apps] tables). A device token is written as the app's token, such as "tok-mail-1"."#
            ])
    }

    /// holds_paths must name resources the policy declares.
    @Test func heldPathOfAnUndeclaredResourceIsReported() {
        #expect(
            messages(steps: [], extra: "holds_paths = [\"camera\"]") == [
                #"Scenario "test.toml", line 10: key "apps.maps.holds_paths" names the undeclared resource "camera" (none are declared); declare it under [policy.resources.camera] with its paths."#
            ])
    }

    /// A time that is not a number with a unit names the step and its line.
    @Test func badTimeIsReported() {
        #expect(
            messages(steps: ["0s open mail", "ten open mail"]) == [
                #"Scenario "test.toml", line 5: step 2 ("ten open mail"): the time "ten" must be a duration: numbers followed by h, m, s or ms, such as "10s", "1.5m" or "15m5s"."#
            ])
        #expect(
            messages(steps: ["10 open mail"]) == [
                #"Scenario "test.toml", line 4: step 1 ("10 open mail"): the time "10" must be a duration: numbers followed by h, m, s or ms, such as "10s", "1.5m" or "15m5s"."#
            ])
    }

    /// A step earlier than the one before it is refused.
    @Test func decreasingTimeIsReported() {
        #expect(
            messages(steps: ["10s open mail", "5s home"]) == [
                #"Scenario "test.toml", line 5: step 2 ("5s home"): the time 5s is earlier than the 10s of step 1; steps must never go back in time."#
            ])
    }

    /// An unknown verb names the verb, suggests the closest one and lists them all.
    @Test func unknownVerbIsReported() {
        #expect(
            messages(steps: ["0s open mail", "1s home", "10s opne mail"]) == [
                #"Scenario "test.toml", line 6: step 3 ("10s opne mail"): unknown verb "opne" (did you mean "open"?); expected one of open, home, overlay, overlay-end, lock, unlock, force-quit, reset, push, accessory, footprint, pressure, memory, scan, stall, cpu, or an app's name followed by an app call."#
            ])
    }

    /// A step naming an app the scenario does not know is refused, with the known apps.
    @Test func unknownAppIsReported() {
        #expect(
            messages(steps: ["0s open mial", "1s chat begin-task x"]) == [
                #"Scenario "test.toml", line 4: step 1 ("0s open mial"): unknown app "mial" (did you mean "mail"?); the scenario knows mail, maps (from its policy and its [apps] tables)."#,
                #"Scenario "test.toml", line 5: step 2 ("1s chat begin-task x"): unknown app "chat"; the scenario knows mail, maps (from its policy and its [apps] tables)."#,
            ])
    }

    /// A footprint step with a size that is not one is refused.
    @Test func badSizeIsReported() {
        #expect(
            messages(steps: ["0s footprint mail lots"]) == [
                #"Scenario "test.toml", line 4: step 1 ("0s footprint mail lots"): the size "lots" must be a number followed by B, KiB, MiB, GiB or TiB, such as "300MiB"."#
            ])
    }

    /// A footprint step may give the part in swap; one larger than the footprint, or a word
    /// other than `swapped`, is refused with the form expected.
    @Test func footprintTakesItsPartInSwap() throws {
        let scenario = try load(steps: ["0s footprint mail 300MiB swapped 120MiB", "1s footprint maps 80MiB"])
        #expect(
            scenario.steps.map(\.verb) == [
                .event(.footprint(app: "mail", bytes: 300 << 20, swapped: 120 << 20)),
                .event(.footprint(app: "maps", bytes: 80 << 20)),
            ])
        #expect(
            messages(steps: ["0s footprint mail 100MiB swapped 120MiB", "1s footprint mail 100MiB spilled 1MiB"]) == [
                #"Scenario "test.toml", line 4: step 1 ("0s footprint mail 100MiB swapped 120MiB"): the swapped part "120MiB" of mail cannot be more than its footprint "100MiB"."#,
                #"Scenario "test.toml", line 5: step 2 ("1s footprint mail 100MiB spilled 1MiB"): "footprint" takes the app, its size and, optionally, "swapped" and the size of its part in swap, as in "footprint mail 300MiB swapped 120MiB"."#,
            ])
    }

    /// After the swapped part a footprint step may say what it takes of RAM: `ratio R` (1/R of
    /// it, as in a zram) or `in-ram SIZE`; a ratio under 1, a figure over the swapped part or
    /// another word is refused with the forms expected.
    @Test func footprintTakesWhatItsSwappedPartHoldsOfRAM() throws {
        let scenario = try load(steps: [
            "0s footprint mail 300MiB swapped 120MiB ratio 3", "1s footprint maps 80MiB swapped 60MiB in-ram 0B",
        ])
        let mib: Int64 = 1 << 20
        let expected: [ScenarioVerb] = [
            .event(.footprint(app: "mail", bytes: 300 * mib, swapped: 120 * mib, swappedInRAM: 40 * mib)),
            .event(.footprint(app: "maps", bytes: 80 * mib, swapped: 60 * mib, swappedInRAM: 0)),
        ]
        #expect(scenario.steps.map(\.verb) == expected)
        #expect(
            messages(steps: [
                "0s footprint mail 300MiB swapped 120MiB ratio 0.5",
                "1s footprint mail 300MiB swapped 120MiB in-ram 121MiB",
                "2s footprint mail 300MiB swapped 120MiB zram 2",
            ]) == [
                #"Scenario "test.toml", line 4: step 1 ("0s footprint mail 300MiB swapped 120MiB ratio 0.5"): "ratio" needs the compression of the swapped part, a number of at least 1, as in "footprint mail 200MiB swapped 200MiB ratio 3"."#,
                #"Scenario "test.toml", line 5: step 2 ("1s footprint mail 300MiB swapped 120MiB in-ram 121MiB"): "in-ram" needs the RAM the swapped part takes, a size of at most that part, as in "footprint mail 200MiB swapped 200MiB in-ram 70MiB"."#,
                #"Scenario "test.toml", line 6: step 3 ("2s footprint mail 300MiB swapped 120MiB zram 2"): "footprint" does not take "zram"; after the swapped part come only "ratio R" or "in-ram SIZE"."#,
            ])
    }

    /// Unknown keys, bad facts and bad expectations are all reported at once, in line order.
    @Test func everyProblemIsReportedWithItsKey() {
        let problems = messages(
            steps: ["0s open mail"],
            extra: """
                on_fetch = "sometimes"
                launch_time = "soon"

                [expect]
                kill_order = ["mial"]
                terminations = ["maps memPressure"]
                analytics = ["$AppTerminated maps"]
                at = ["9s mail sleeping"]
                kill_ordre = []
                """)
        #expect(
            problems == [
                #"Scenario "test.toml", line 10: key "apps.maps.on_fetch" must be "complete newData|noData|failed after DURATION" (such as "complete newData after 1s") or "never"."#,
                #"Scenario "test.toml", line 11: key "apps.maps.launch_time" must be a duration such as "2s", or "never"."#,
                #"Scenario "test.toml", line 14: key "expect.kill_order" entry 1 ("mial") names the unknown app "mial" (did you mean "mail"?)."#,
                #"Scenario "test.toml", line 15: key "expect.terminations" entry 1 ("maps memPressure") has the unknown termination reason "memPressure"; expected one of exited, crashed, userForceQuit, memoryPressure, backgroundTaskExpired, fetchTimeout, pushTimeout, accessoryTimeout, heldSharedResource, launchTimeout, launchFailed, memoryLimit, kernelOOMKill, cpuLimit, policyRemoved, policyChanged."#,
                #"Scenario "test.toml", line 16: key "expect.analytics" entry 1 ("$AppTerminated maps") lists $AppTerminated, which is checked by "terminations" ("APP reason") instead."#,
                #"Scenario "test.toml", line 17: key "expect.at" entry 1 ("9s mail sleeping") has the unknown state "sleeping"; expected one of notRunning, inactive, active, background, suspended."#,
                #"Scenario "test.toml", line 18: key "expect.kill_ordre" is unknown (did you mean "kill_order"?); [expect] takes kill_order, terminations, analytics, status, launches, refused, at."#,
            ])
    }

    /// A policy path that does not exist is reported at the scenario's key, with the resolved path.
    @Test func missingPolicyFileIsReported() {
        let text = """
            [scenario]
            policy = "../policies/nowhere.toml"
            steps = []
            """
        #expect(throws: ScenarioError.self) { try ScenarioLoader.parse(text: text, file: "scenarios/x.toml") }
        do {
            _ = try ScenarioLoader.parse(text: text, file: "scenarios/x.toml")
        } catch {
            #expect(
                error.diagnostics.map(\.description) == [
                    #"Scenario "scenarios/x.toml", line 2: key "scenario.policy" names "../policies/nowhere.toml" ("scenarios/../policies/nowhere.toml"): the file does not exist."#
                ])
        }
    }

    /// The policy path is relative to the scenario file, and [policy] and [apps] layer over it.
    @Test func policyIsComposedFromTheBaseFileAndOverrides() throws {
        let scenario = try ScenarioLoader.load(path: ScenarioFiles.path("scenarios/demo.toml"))
        #expect(scenario.policy.apps.map(\.name) == ["launcher", "mail", "chat", "maps", "camera", "music"])
        #expect(scenario.policy.app(named: "launcher")?.isProtected == true)
        #expect(scenario.facts(of: "maps").footprint == 256 << 20)
        #expect(scenario.facts(of: "chat").onPush == .complete(.newData, after: .seconds(2)))
        #expect(scenario.memory == 1 << 30)
        #expect(scenario.reserved == 256 << 20)
        #expect(scenario.endTime == Instant(sinceOrigin: .seconds(17 * 60)))
    }

    /// Without `until`, the run ends at the last step or `at` time, whichever is later.
    @Test func endTimeDefaultsToTheLastStepOrCheck() throws {
        let scenario = try load(steps: ["0s open mail", "20s home"], extra: "\n[expect]\nat = [\"1m mail suspended\"]")
        #expect(scenario.endTime == Instant(sinceOrigin: .seconds(60)))
        let shorter = try load(steps: ["0s open mail", "20s home"], extra: "\n[expect]\nat = [\"5s mail active\"]")
        #expect(shorter.endTime == Instant(sinceOrigin: .seconds(20)))
    }

    /// Simulation facts parse: completions, expiration behaviour and launch time.
    @Test func simulationFactsParse() throws {
        let scenario = try load(
            steps: [],
            extra: """
                footprint = "1.5GiB"
                on_fetch = "complete failed after 2.5s"
                on_push = "never"
                on_expiration = "ignore"
                launch_time = "never"
                """)
        let facts = scenario.facts(of: "maps")
        #expect(facts.footprint == 3 << 29)
        #expect(facts.onFetch == .complete(.failed, after: .milliseconds(2500)))
        #expect(facts.onPush == .never)
        #expect(facts.onExpiration == .ignore)
        #expect(facts.launchTime == nil)
        #expect(scenario.facts(of: "mail") == AppFacts())
    }
}
