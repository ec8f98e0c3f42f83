import Testing
import WardenCore
import WardenScenario
import WardenSimulator

@Suite struct SimulatorTests {
    private func at(_ seconds: Int64) -> Instant { Instant(sinceOrigin: .seconds(seconds)) }

    private func step(_ seconds: Int64, _ verb: ScenarioVerb) -> ScenarioStep {
        ScenarioStep(time: at(seconds), verb: verb)
    }

    private let twoApps = Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")])

    /// A scenario built in code can be stepped one step at a time and its trace read.
    @Test func scenarioBuiltInCodeCanBeStepped() {
        let scenario = Scenario(name: "in code", policy: twoApps)
        var simulator = Simulator(scenario: scenario)
        simulator.apply(step(0, .event(.open(app: "mail"))))
        #expect(simulator.state(of: "mail") == .active)
        #expect(simulator.isRunning("mail"))
        simulator.apply(step(10, .event(.home)))
        #expect(simulator.state(of: "mail") == .background)
        simulator.advance(to: at(14))
        #expect(simulator.state(of: "mail") == .background)
        simulator.advance(to: at(15))
        #expect(simulator.state(of: "mail") == .suspended)
        #expect(simulator.status(of: "mail") == .background)
        let text = TraceText.render(simulator.trace)
        #expect(text.contains("     15s    mail       background → suspended"))
        #expect(text.contains("      0s  ▸ open mail"))
        #expect(simulator.record.analyticsLines == ["$AppStart mail", "$AppEnd mail"])
    }

    /// A timer due at a step's time fires before the step: the grace ends before `open` at 15s.
    @Test func timersDueAtAStepFireBeforeIt() {
        var simulator = Simulator(scenario: Scenario(name: "order", policy: twoApps))
        simulator.apply(step(0, .event(.open(app: "mail"))))
        simulator.apply(step(10, .event(.home)))
        simulator.apply(step(15, .event(.open(app: "mail"))))
        let states = simulator.trace.compactMap { entry -> String? in
            if case .action(.journal(let record)) = entry.kind, case .stateChange(_, let to, _) = record.kind {
                return "\(TraceText.clock(entry.time)) \(to.rawValue)"
            }
            return nil
        }
        #expect(states.suffix(3) == ["15s suspended", "15s inactive", "15s active"])
    }

    /// A step the core refuses is recorded with its sentence, and the run goes on.
    @Test func refusedStepIsRecordedNotFatal() {
        var simulator = Simulator(scenario: Scenario(name: "refusal", policy: twoApps))
        let result = simulator.apply(
            ScenarioStep(
                time: at(1), verb: .event(.beginTask(app: "mail", name: "sync")), text: "1s mail begin-task sync"))
        guard case .failure(let error) = result else {
            Issue.record("begin-task on a not-running app was accepted")
            return
        }
        #expect(error.code == .conflict)
        #expect(simulator.record.refusals.map(\.what) == ["1s mail begin-task sync"])
        #expect(TraceText.render(simulator.trace).contains("✗ refused \"1s mail begin-task sync\""))
        simulator.apply(step(2, .event(.open(app: "mail"))))
        #expect(simulator.state(of: "mail") == .active)
    }

    /// A crash of an app that is not running is refused by the simulated runtime.
    @Test func crashOfAStoppedAppIsRefused() {
        var simulator = Simulator(scenario: Scenario(name: "crash", policy: twoApps))
        let result = simulator.apply(step(0, .crash(app: "maps")))
        #expect(throws: LifecycleError.self) { try result.get() }
        #expect(simulator.record.terminations.isEmpty)
    }

    /// end-task by name ends the task begun with that name; the app is then suspended at once.
    @Test func endTaskByNameResolvesTheId() {
        var simulator = Simulator(scenario: Scenario(name: "tasks", policy: twoApps))
        simulator.apply(step(0, .event(.open(app: "mail"))))
        simulator.apply(step(1, .event(.beginTask(app: "mail", name: "first"))))
        simulator.apply(step(1, .event(.beginTask(app: "mail", name: "second"))))
        simulator.apply(step(2, .event(.home)))
        simulator.apply(step(3, .endTask(app: "mail", task: .name("second"))))
        #expect(simulator.state(of: "mail") == .background)
        let unknown = simulator.apply(step(4, .endTask(app: "mail", task: .name("third"))))
        #expect(throws: LifecycleError.self) { try unknown.get() }
        simulator.apply(step(5, .endTask(app: "mail", task: .name("first"))))
        #expect(simulator.state(of: "mail") == .suspended)
    }

    /// Under the memory model each kill frees the victim's footprint and the loop stops once
    /// available memory is back at or above critical_exit (with no fair share, the band order
    /// alone decides).
    @Test func memoryModelKillsUntilCriticalExit() {
        let policy = Policy(
            memory: MemorySettings(criticalEnter: .bytes(100 << 20), criticalExit: .bytes(300 << 20), fairShare: nil),
            apps: ["a", "b", "c", "front"].map { AppPolicy(name: $0) })
        let footprints: [String: Int64] = ["a": 400 << 20, "b": 250 << 20, "c": 100 << 20, "front": 10 << 20]
        let scenario = Scenario(
            name: "loop", policy: policy, memory: 1 << 30,
            facts: footprints.mapValues { AppFacts(footprint: $0) })
        var simulator = Simulator(scenario: scenario)
        for (offset, app) in ["a", "b", "c", "front"].enumerated() {
            simulator.apply(step(Int64(offset), .event(.open(app: app))))
        }
        simulator.advance(to: at(20))
        #expect(simulator.availableMemory == Int64(264) << 20)
        #expect(simulator.record.killOrder.isEmpty)
        // 1024 − 750 − 260 = 14MiB < 100MiB: a (400MiB) goes → 414MiB ≥ 300MiB.
        simulator.apply(step(21, .event(.footprint(app: "front", bytes: 260 << 20))))
        #expect(simulator.record.killOrder == ["a"])
        #expect(simulator.availableMemory == Int64(414) << 20)
        // More than a minute later (the room a's kill made is forgotten: front's growth is not
        // charged to it), 414 − 400 = 14MiB: b (250MiB) → 264MiB, still < 300MiB: c (100MiB) → 364MiB.
        simulator.apply(step(90, .event(.footprint(app: "front", bytes: 660 << 20))))
        #expect(simulator.record.killOrder == ["a", "b", "c"])
        #expect(simulator.availableMemory == Int64(364) << 20)
        #expect(!simulator.isRunning("c"))
        #expect(simulator.isRunning("front"))
    }

    /// Under the memory model a swapped part takes of RAM what its footprint step says (`ratio`),
    /// else what the scenario's swap keeps of it (a disk: nothing); a kill frees that and the
    /// app's part in RAM, and the killer takes first the app whose kill frees the most: `b`
    /// (100MiB in RAM) before `a` (300MiB, all in swap at ratio 4: 75MiB).
    @Test func memoryModelCountsTheRAMASwappedPartTakesAndKillsByIt() {
        let policy = Policy(
            memory: MemorySettings(criticalEnter: .bytes(100 << 20), criticalExit: .bytes(150 << 20), fairShare: nil),
            apps: ["a", "b", "c", "front"].map { AppPolicy(name: $0) })
        let footprints: [String: Int64] = ["a": 300 << 20, "b": 100 << 20, "c": 100 << 20, "front": 10 << 20]
        let scenario = Scenario(
            name: "swapped", policy: policy, memory: 1 << 30, swap: 360 << 20,
            facts: footprints.mapValues { AppFacts(footprint: $0) })
        var simulator = Simulator(scenario: scenario)
        for (offset, app) in ["a", "b", "c", "front"].enumerated() {
            simulator.apply(step(Int64(offset), .event(.open(app: app))))
        }
        simulator.advance(to: at(20))
        // Compression is on by default: without zram_ratio the suspended apps' memory goes to a
        // disk and takes no RAM. The steps put it as measured, swap full (no headroom).
        simulator.apply(step(20, .event(.footprint(app: "b", bytes: 100 << 20, swapped: 0))))
        simulator.apply(step(20, .event(.footprint(app: "c", bytes: 100 << 20, swapped: 60 << 20))))
        simulator.apply(
            step(20, .event(.footprint(app: "a", bytes: 300 << 20, swapped: 300 << 20, swappedInRAM: 75 << 20))))
        // 1024 − 10 − 100 (b) − 40 (c) − 75 (a's compressed copy) = 799MiB.
        #expect(simulator.availableMemory == Int64(799) << 20)
        // 799 − 730 = 69MiB < 100MiB: b goes (100MiB back) → 169MiB ≥ 150MiB.
        simulator.apply(step(21, .event(.footprint(app: "front", bytes: 740 << 20))))
        #expect(simulator.record.killOrder == ["b"])
        #expect(simulator.availableMemory == Int64(169) << 20)
    }

    /// Without the memory model, each `pressure critical` kills exactly one victim.
    @Test func pressureStepKillsOneVictimEach() {
        let scenario = Scenario(name: "pressure", policy: twoApps)
        var simulator = Simulator(scenario: scenario)
        simulator.apply(step(0, .event(.open(app: "mail"))))
        simulator.apply(step(1, .event(.open(app: "maps"))))
        simulator.apply(step(2, .event(.home)))
        simulator.apply(step(10, .event(.pressure(.critical))))
        #expect(simulator.record.killOrder.count == 1)
        simulator.apply(step(11, .event(.pressure(.critical))))
        #expect(simulator.record.killOrder.count == 2)
    }

    /// A failing expectation produces a diff naming the first differing index and both lists.
    @Test func failingExpectationShowsADiff() {
        let scenario = Scenario(
            name: "diff", policy: twoApps,
            steps: [step(0, .event(.open(app: "mail"))), step(1, .event(.open(app: "maps"))), step(10, .event(.home))],
            expectations: ScenarioExpectations(
                analytics: ["$AppStart mail", "$AppStart maps"],
                states: [StateExpectation(time: at(9), app: "mail", state: .background)]))
        var simulator = Simulator(scenario: scenario)
        let result = simulator.run()
        #expect(!result.passed)
        #expect(
            result.diff == """
                analytics differs at index 1: expected "$AppStart maps", got "$AppEnd mail".
                  expected: ["$AppStart mail", "$AppStart maps"]
                  actual:   ["$AppStart mail", "$AppEnd mail", "$AppStart maps", "$AppEnd maps"]
                at "9s mail background": the state was suspended.
                """)
        #expect(result.summary == "FAIL diff: 2 of 2 expectations do not hold")
    }

    /// A list shorter than expected says "nothing more" at the first missing index.
    @Test func missingEntriesAreNamed() {
        let check = ExpectationCheck(key: "kill_order", expected: ["maps", "mail"], actual: ["maps"])
        #expect(check.firstDifference == 1)
        #expect(check.diff.hasPrefix("kill_order differs at index 1: expected \"mail\", got nothing more."))
    }

    /// `at` checks run after everything due at their time, including timers armed by a step at that time.
    @Test func stateChecksSeeEverythingDueAtTheirTime() {
        let scenario = Scenario(
            name: "checks", policy: twoApps,
            steps: [step(0, .event(.open(app: "mail"))), step(5, .event(.home))],
            expectations: ScenarioExpectations(states: [
                StateExpectation(time: at(5), app: "mail", state: .background),
                StateExpectation(time: at(10), app: "mail", state: .suspended),
            ]))
        var simulator = Simulator(scenario: scenario)
        let result = simulator.run()
        #expect(result.passed, "\(result.diff)")
        #expect(result.endTime == at(10))
    }

    /// The JSON output carries the verdict, the record and the trace with times in milliseconds.
    @Test func jsonOutputCarriesTheVerdictAndTrace() {
        let scenario = Scenario(
            name: "json \"quoted\"", policy: twoApps, steps: [step(0, .event(.open(app: "mail")))],
            expectations: ScenarioExpectations(analytics: ["$AppStart mail"]))
        var simulator = Simulator(scenario: scenario)
        let json = simulator.run().json.text
        #expect(json.hasPrefix(#"{"scenario":"json \"quoted\"","file":null,"passed":true,"endMillis":0,"#))
        #expect(json.contains(#"{"timeMillis":0,"type":"step","app":"mail","text":"▸ open mail"}"#))
        #expect(json.contains(#""analytics":["$AppStart mail"]"#))
    }

    /// A fetch answered "never" ends in a fetch timeout; one answered after 1s does not.
    @Test func fetchBehaviourFollowsTheFacts() {
        var app = AppPolicy(name: "mail", backgroundModes: [.fetch], fetchInterval: .every(.seconds(900)))
        app.settings.fetch.window = .seconds(30)
        let policy = Policy(apps: [app])
        for (behavior, terminations) in [(CompletionBehavior.never, ["mail fetchTimeout"]), (.default, [])] {
            let scenario = Scenario(
                name: "fetch", policy: policy, until: at(1000),
                facts: ["mail": AppFacts(onFetch: behavior)])
            var simulator = Simulator(scenario: scenario)
            let result = simulator.run()
            #expect(result.record.terminationLines == terminations)
            #expect(result.record.analyticsLines == ["$AppStartPassively mail"])
        }
    }
}

/// Records what a status observer is told.
private final class StatusLog: AppStatusObserver {
    var entries: [String] = []

    func appStatusDidChange(app: String, to status: AppStatus) {
        entries.append("\(app) \(status)")
    }
}

@Suite struct SimulatorNotifierTests {
    /// Observers added to the simulator's notifier hear every publication, leaving app first.
    @Test func observersHearPublicationsInOrder() {
        let policy = Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")])
        var simulator = Simulator(scenario: Scenario(name: "observers", policy: policy))
        let log = StatusLog()
        simulator.notifier.addObserver(log)
        simulator.apply(ScenarioStep(time: .zero, verb: .event(.open(app: "mail"))))
        simulator.apply(ScenarioStep(time: Instant(sinceOrigin: .seconds(1)), verb: .event(.open(app: "maps"))))
        #expect(log.entries == ["mail foreground", "mail background", "maps foreground"])
        #expect(simulator.notifier.isInForeground("maps"))
        #expect(simulator.status(of: "mail") == .background)
    }
}
