import Foundation
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenScenario
import WardenSimulator
import WardenTesting

/// Plays a scenario against the daemon in virtual time, the way `Simulator` plays it against the
/// core alone: the same steps at the same times, each app played by the simulator's own model
/// of it (`SimulatedApp`): it runs `launch_time` after its spawn and answers fetch and push
/// windows and expiration calls as its facts say. Under the memory model the fake driver plays
/// the device, and the daemon's own memory watch measures it after every change of what is in
/// memory, as the kernel's notifications make it measure. What the daemon journaled
/// and launched is then checked against the scenario's `[expect]` keys, as the simulator checks
/// its record.
struct ScenarioReplay {
    /// Something a simulated app will do, queued until its time.
    struct AppDoing: Sendable {
        var app: String
        var doing: SimulatedApp.Doing
    }

    let scenario: Scenario
    let bed: WardenTestBed
    /// The simulated apps, by name.
    var apps: [String: SimulatedApp]
    var doings = DeadlineQueue<AppDoing>()
    var stateChecks: [(expectation: StateExpectation, actual: AppState?)] = []
    /// Refused steps as `[expect] refused` writes them: the time, the step without its time, and
    /// the error's code (`"30s open mail conflict"`).
    var refusals: [String] = []
    var launchesSeen = 0
    var lastEntryID: Int64 = 0

    /// The scenario's policy with a command for every app (the fake launcher runs none).
    static func daemonPolicy(of scenario: Scenario) -> Policy {
        var policy = scenario.policy
        for index in policy.apps.indices where policy.apps[index].command == nil {
            policy.apps[index].command = "/usr/libexec/appwarden-virtual/\(policy.apps[index].name)"
        }
        return policy
    }

    /// Starts a daemon in virtual time for `scenario`.
    static func start(_ scenario: Scenario) async -> ScenarioReplay {
        let bed = await WardenTestBed.start(policy: daemonPolicy(of: scenario))
        var apps: [String: SimulatedApp] = [:]
        for app in scenario.policy.apps {
            let facts = scenario.facts(of: app.name)
            apps[app.name] = SimulatedApp(name: app.name, facts: facts)
            let paths = facts.holdsPaths.flatMap { scenario.policy.resources[$0]?.paths ?? [] }
            bed.launcher.setHeldPaths(Set(paths), app: app.name)
            // An immediate app is ready once its process runs: the fake launcher holds it until
            // the app's model runs it, `launch_time` after the spawn.
            bed.launcher.setStartsDelayed(app.readiness == .immediate && facts.launchTime != .zero, app: app.name)
            bed.driver.setFootprint(facts.footprint ?? 0, of: app.name)
            let cpuClock = bed.clock
            bed.driver.countCPU { cpuClock.now.offset }
            if facts.swapIn > .zero {
                let clock = bed.clock
                bed.driver.setSwapIn(facts.swapIn, of: app.name) { clock.now.offset }
            }
        }
        if let memory = scenario.memory {
            bed.driver.setDeviceMemory(memory, reserved: scenario.reserved)
        }
        if let swap = scenario.swap {
            bed.driver.setDeviceSwap(swap, zramRatio: scenario.zramRatio)
        }
        return ScenarioReplay(scenario: scenario, bed: bed, apps: apps)
    }

    /// Replays the whole scenario and returns one verdict per expectation, as the simulator's
    /// `SimulationResult.checks` gives them.
    mutating func run() async -> [ExpectationCheck] {
        // The apps' known footprints and the first memory sample, at time zero.
        for app in scenario.policy.apps {
            if let bytes = scenario.facts(of: app.name).footprint {
                _ = try? await bed.daemon.perform(.footprint(app: app.name, bytes: bytes))
            }
        }
        await observe()
        for item in scenario.timeline {
            switch item {
            case .check(let expectation):
                await advance(to: expectation.time)
                await check(expectation)
            case .step(let index):
                let step = scenario.steps[index]
                await advance(to: step.time)
                if let error = await perform(step.verb) {
                    refusals.append(TraceText.refusalLine(step.text, at: step.time, code: error.code.rawValue))
                }
                await observe()
            }
        }
        await advance(to: scenario.endTime)
        return verdicts()
    }

    /// Moves time on to `time`: the daemon's timers and the apps' doings each at their own time
    /// (the daemon's first when both fall on one instant).
    mutating func advance(to time: Instant) async {
        while true {
            await observe()
            let wake = bed.nextWake.map(Instant.init(sinceOrigin:))
            let doing = doings.nextDeadline
            guard let next = [wake, doing].compactMap({ $0 }).min(), next <= time else { break }
            if let wake, wake == next {
                await bed.advance(to: wake.sinceOrigin)
                continue
            }
            await bed.advance(to: next.sinceOrigin)
            while let entry = doings.popDue(through: next) {
                noteProcessEnd(of: entry.element.app)
                _ = await play([entry.element.doing], of: entry.element.app)
                await observe()
            }
        }
        await bed.advance(to: time.sinceOrigin)
        await observe()
    }

    /// Records the state of an `at` expectation now.
    mutating func check(_ expectation: StateExpectation) async {
        let actual = await bed.control.app(named: expectation.app).flatMap { $0.state.appState }
        stateChecks.append((expectation, actual))
    }

    /// Carries out one step: a verb for the daemon, or a change of the simulated world; returns
    /// the refusal, if the step was refused.
    mutating func perform(_ verb: ScenarioVerb) async -> LifecycleError? {
        let daemon = bed.daemon
        switch verb {
        case .event(let event):
            switch event {
            case .beginTask(let app, let name):
                do {
                    if case .taskBegun(let id, _) = try await daemon.perform(event) {
                        apps[app]?.taskBegun(id, named: name)
                    }
                    return nil
                } catch {
                    return error
                }
            case .footprint(let app, let bytes, let swapped, let inRAM):
                // What the next sweep of the app's group would find; a swapped part takes of RAM
                // what the step says, else what the scenario's swap keeps of it, as in the simulator.
                let swappedNow = swapped.map { min($0, bytes) }
                let held = inRAM ?? swappedNow.map(scenario.swappedInRAM)
                bed.driver.setFootprint(bytes, swapped: swappedNow, swappedInRAM: held, of: app)
                return await send(.footprint(app: app, bytes: bytes, swapped: swappedNow, swappedInRAM: held))
            default:
                // Pressure, too, goes in as the pressure monitor would report it.
                return await send(event)
            }
        case .endTask(let app, let reference):
            noteProcessEnd(of: app)
            let taskID: Int
            switch SimulatedApp.taskID(reference, of: app, in: apps[app]) {
            case .success(let id): taskID = id
            case .failure(let error): return error
            }
            let refusal = await send(.endTask(app: app, taskID: taskID))
            if refusal == nil {
                apps[app]?.taskEnded(taskID)
            }
            return refusal
        case .crash(let app):
            guard bed.launcher.crash(app) else { return .notRunning(app, toDo: "crash") }
            return nil
        case .exit(let app):
            guard bed.launcher.exit(app) else { return .notRunning(app, toDo: "exit") }
            return nil
        case .scan(let app, let outcome):
            bed.driver.setScanOutcome(outcome, of: app)
            return nil
        case .stall(let percent):
            bed.driver.setStall(percent)
            return nil
        case .cpu(let app, let percent):
            bed.driver.setCPUUse(percent, of: app)
            return nil
        }
    }

    /// Sends an event; returns the refusal, which is part of the scenario (the simulator records
    /// it and goes on).
    @discardableResult
    func send(_ event: LifecycleEvent) async -> LifecycleError? {
        do {
            _ = try await bed.daemon.perform(event)
            return nil
        } catch {
            return error
        }
    }

    /// Carries out what app `app` will do (`SimulatedApp.Doing`): what is due now at once, the
    /// rest when its time comes. A process that runs is let run by the fake launcher (a process
    /// started late waits in it until then), then the app makes its first calls and answers what
    /// reached it before. Returns whether the app made a call now.
    mutating func play(_ doings: [SimulatedApp.Doing], of app: String) async -> Bool {
        var called = false
        for doing in doings {
            guard doing.time == now else {
                self.doings.schedule(AppDoing(app: app, doing: doing), at: doing.time)
                continue
            }
            switch doing.kind {
            case .call(let event):
                guard apps[app]?.isCurrent(doing) == true else { continue }
                await send(event)
                called = true
            case .run:
                guard let calls = apps[app]?.beginsToRun(doing) else { continue }
                bed.launcher.start(app)
                for call in calls {
                    await send(call)
                    called = true
                }
                let (time, stall) = (now, bed.driver.memoryStallRemaining(of: app))
                let answers = apps[app]?.answerHeldMessages(at: time, stalledFor: stall) ?? []
                if await play(answers, of: app) { called = true }
            }
        }
        return called
    }

    /// Tells the model of `app` that its process is gone, once the fake launcher runs it no more.
    mutating func noteProcessEnd(of app: String) {
        guard let launch = apps[app]?.launch, currentLaunch(of: app) != launch else { return }
        apps[app]?.processEnded()
    }

    func currentLaunch(of app: String) -> Int? {
        guard let pid = bed.launcher.pid(of: app) else { return nil }
        return bed.launcher.launches.last { $0.pid == pid }?.launch
    }

    /// Lets the daemon settle, then lets the simulated apps react to what it did (launches,
    /// messages) and, under the memory model, sends a memory sample while what is in memory
    /// changes, until nothing more happens at this time.
    mutating func observe() async {
        while true {
            await bed.settle()
            var acted = false
            let launches = bed.launcher.launches
            for launch in launches[launchesSeen...] {
                let (time, readiness) = (now, scenario.policy.app(named: launch.app)?.readiness)
                let run = apps[launch.app]?.spawned(launch.launch, readiness: readiness, at: time) ?? []
                if await play(run, of: launch.app) { acted = true }
            }
            launchesSeen = launches.count
            let entries = bed.journal.entries(JournalQuery(sinceID: lastEntryID, limit: Int.max))
            for entry in entries {
                lastEntryID = entry.id
                guard case .message(let message) = entry.event else { continue }
                noteProcessEnd(of: entry.app)
                let (time, stall) = (now, bed.driver.memoryStallRemaining(of: entry.app))
                let answers = apps[entry.app]?.receive(message, at: time, stalledFor: stall) ?? []
                if await play(answers, of: entry.app) { acted = true }
            }
            if !acted { return }
        }
    }

    var now: Instant { Instant(sinceOrigin: bed.now) }

    /// The verdicts, built from the journal and the launches as the simulator builds them from its record.
    func verdicts() -> [ExpectationCheck] {
        let entries = bed.journal.entries(JournalQuery(limit: Int.max))
        let terminated = entries.filter { $0.kind == "analytics" && $0.name == "$AppTerminated" }
        let expectations = scenario.expectations
        var checks: [ExpectationCheck] = []
        if let expected = expectations.killOrder {
            let actual = terminated.filter { $0.properties["reason"] == TerminationReason.memoryPressure.rawValue }
                .map(\.app)
            checks.append(ExpectationCheck(key: "kill_order", expected: expected, actual: actual))
        }
        if let expected = expectations.terminations {
            let actual = terminated.map { "\($0.app) \($0.properties["reason"] ?? "?")" }
            checks.append(ExpectationCheck(key: "terminations", expected: expected, actual: actual))
        }
        if let expected = expectations.analytics {
            let actual = entries.filter { $0.kind == "analytics" && $0.name != "$AppTerminated" }
                .map { "\($0.name) \($0.app)" }
            checks.append(ExpectationCheck(key: "analytics", expected: expected, actual: actual))
        }
        if let expected = expectations.status {
            let actual = entries.filter { $0.kind == "status" }.map { "\($0.app) \($0.name)" }
            checks.append(ExpectationCheck(key: "status", expected: expected, actual: actual))
        }
        if let expected = expectations.launches {
            let actual = bed.launcher.launches.map { launch in
                let environment = launch.request.environment
                let reason = environment["APPWARDEN_LAUNCH_REASON"] ?? "?"
                return "\(launch.app) \(reason)\(environment["APPWARDEN_RESTORE"] == "1" ? " restore" : "")"
            }
            checks.append(ExpectationCheck(key: "launches", expected: expected, actual: actual))
        }
        for (expectation, actual) in stateChecks {
            let holds = actual == expectation.state
            checks.append(
                ExpectationCheck(
                    key: "at", expected: [expectation.text],
                    actual: [holds ? expectation.text : (actual?.rawValue ?? "unknown")]))
        }
        return checks
    }
}
