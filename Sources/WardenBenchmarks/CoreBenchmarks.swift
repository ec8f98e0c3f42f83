import WardenCore
import WardenScenario
import WardenSimulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Benchmarks of the pure core and the simulator: victim ranking, raw event throughput, and
/// simulated days. Prints a line per figure.
enum CoreBenchmarks {
    static func run() {
        ranking(apps: 10_000, rounds: 2_000)
        criticalSample(suspended: 1_000)
        coreThroughput(apps: 50, cycles: 200_000)
        simulatorThroughput(apps: 50, cycles: 100_000)
        simulatorUnderPressure(apps: 50, cycles: 100_000)
        simulatedDay(apps: 200)
    }

    /// Picks the first victim among 10,000 apps spread over every band (rule 9).
    static func ranking(apps count: Int, rounds: Int) {
        var candidates: [KillCandidate] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<count {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let band = KillBand.allCases[Int(seed >> 61) % KillBand.allCases.count]
            candidates.append(
                KillCandidate(
                    app: "app-\(index)", band: band, footprint: Int64(seed >> 40),
                    lastUsed: Instant(sinceOrigin: .milliseconds(Int64(seed >> 50))),
                    isProtected: index % 97 == 0))
        }
        var samples: [Double] = []
        var checksum = 0
        for _ in 0..<rounds {
            let start = Stopwatch()
            let victim = VictimRanking.victim(among: candidates, killForeground: true)
            samples.append(start.elapsedMicroseconds)
            checksum &+= victim?.app.utf8.count ?? 0
        }
        let sortStart = Stopwatch()
        let order = VictimRanking.rank(candidates, killForeground: true)
        let sortTime = sortStart.elapsedMicroseconds
        report("rank 10,000 apps: first victim", samples, unit: "µs", extra: "full order \(format(sortTime)) µs")
        precondition(checksum > 0 && order.count > 0)
    }

    /// Feeds open/home/begin-task/end-task/footprint events straight to `Lifecycle.handle`.
    static func coreThroughput(apps count: Int, cycles: Int) {
        let names = (0..<count).map { "app\($0)" }
        var lifecycle = Lifecycle(policy: Policy(apps: names.map { AppPolicy(name: $0) }))
        var now = Instant.zero
        var events = 0
        let start = Stopwatch()
        for cycle in 0..<cycles {
            let app = names[cycle % count]
            now = now + .milliseconds(10)
            var taskID = 0
            for event in [
                LifecycleEvent.open(app: app), .ready(app: app), .footprint(app: app, bytes: Int64(cycle)),
                .beginTask(app: app, name: "sync"), .home,
            ] {
                let actions = (try? lifecycle.handle(event, at: now)) ?? []
                for case .reply(.taskBegun(let id, _)) in actions { taskID = id }
                events += 1
            }
            _ = try? lifecycle.handle(.endTask(app: app, taskID: taskID), at: now)
            events += 1
        }
        let seconds = start.elapsedSeconds
        print(
            "core throughput: \(events) events in \(format(seconds * 1000)) ms \(rate(events, start, seconds: seconds))"
        )
    }

    /// The same kind of workload through the simulator (steps, timers and simulated app behaviour).
    static func simulatorThroughput(apps count: Int, cycles: Int) {
        let names = (0..<count).map { "app\($0)" }
        var policy = Policy(apps: names.map { AppPolicy(name: $0, backgroundModes: [.fetch]) })
        policy.settings.background.grace = .seconds(5)
        var steps: [ScenarioStep] = []
        var time = Instant.zero
        for cycle in 0..<cycles {
            let app = names[cycle % count]
            time = time + .seconds(3)
            steps.append(ScenarioStep(time: time, verb: .event(.open(app: app))))
            steps.append(ScenarioStep(time: time, verb: .event(.beginTask(app: app, name: "sync"))))
            steps.append(ScenarioStep(time: time + .seconds(1), verb: .event(.home)))
            steps.append(ScenarioStep(time: time + .seconds(2), verb: .endTask(app: app, task: .name("sync"))))
            time = time + .seconds(2)
        }
        let scenario = Scenario(name: "throughput", policy: policy, steps: steps)
        var simulator = Simulator(scenario: scenario, tracing: false)
        let start = Stopwatch()
        let result = simulator.run()
        let seconds = start.elapsedSeconds
        print(
            "simulator throughput: \(result.eventCount) events (\(steps.count) steps) in "
                + "\(format(seconds * 1000)) ms \(rate(result.eventCount, start, seconds: seconds))")
    }

    /// The simulator's memory model under constant pressure: available memory stays between
    /// `critical_enter` and `warning_enter`, so every footprint change and every launch sends a
    /// memory sample that looks at every app for a memory warning; every 50th cycle one app
    /// swells past `critical_enter` and the killer chooses among all of them.
    static func simulatorUnderPressure(apps count: Int, cycles: Int) {
        let names = (0..<count).map { "app\($0)" }
        var policy = Policy(apps: names.map { AppPolicy(name: $0, backgroundModes: [.fetch]) })
        policy.settings.background.grace = .seconds(5)
        let mebibyte: Int64 = 1 << 20
        let memory = 4096 * mebibyte
        // About 10% of memory available with every app at 8 MiB: warning, not critical.
        let reserved = memory - 410 * mebibyte - Int64(count) * 8 * mebibyte
        let facts = Dictionary(uniqueKeysWithValues: names.map { ($0, AppFacts(footprint: 8 * mebibyte)) })
        var steps: [ScenarioStep] = []
        var time = Instant.zero
        for cycle in 0..<cycles {
            let app = names[cycle % count]
            time = time + .seconds(3)
            let swell = cycle % 50 == 49 ? 300 * mebibyte : 9 * mebibyte
            steps.append(ScenarioStep(time: time, verb: .event(.open(app: app))))
            steps.append(ScenarioStep(time: time, verb: .event(.footprint(app: app, bytes: swell))))
            steps.append(ScenarioStep(time: time + .seconds(1), verb: .event(.home)))
            steps.append(
                ScenarioStep(time: time + .seconds(2), verb: .event(.footprint(app: app, bytes: 8 * mebibyte))))
            time = time + .seconds(2)
        }
        let scenario = Scenario(
            name: "pressure", policy: policy, memory: memory, reserved: reserved, steps: steps, facts: facts)
        var simulator = Simulator(scenario: scenario, tracing: false)
        let start = Stopwatch()
        let result = simulator.run()
        let seconds = start.elapsedSeconds
        print(
            "simulator under memory pressure: \(result.eventCount) events (\(steps.count) steps, "
                + "\(result.record.killOrder.count) kills) in "
                + "\(format(seconds * 1000)) ms \(rate(result.eventCount, start, seconds: seconds))")
    }

    /// A 24-hour day of 200 apps: fetches every 15–60 minutes, a silent push to every app every
    /// hour, the user opening a few apps each hour, memory pressure now and then.
    static func simulatedDay(apps count: Int) {
        let names = (0..<count).map { "app\($0)" }
        let policy = Policy(
            apps: names.enumerated().map { index, name in
                AppPolicy(
                    name: name, backgroundModes: [.fetch, .remoteNotification],
                    fetchInterval: .every(.seconds(Int64(900 + (index % 4) * 900))))
            })
        var steps: [ScenarioStep] = []
        let payload = #"{"aps":{"content-available":1}}"#
        for hour in 0..<24 {
            let base = Instant(sinceOrigin: .seconds(Int64(hour) * 3600))
            for (index, name) in names.enumerated() {
                let at = base + .seconds(Int64(index * 17 % 3600))
                steps.append(ScenarioStep(time: at, verb: .event(.push(target: .app(name), payload: payload, id: nil))))
            }
            for pick in 0..<5 {
                let name = names[(hour * 37 + pick * 11) % count]
                steps.append(
                    ScenarioStep(time: base + .seconds(Int64(600 * pick + 30)), verb: .event(.open(app: name))))
                steps.append(ScenarioStep(time: base + .seconds(Int64(600 * pick + 300)), verb: .event(.home)))
            }
            steps.append(ScenarioStep(time: base + .seconds(3599), verb: .event(.pressure(.critical))))
        }
        steps.sort { $0.time < $1.time }
        let scenario = Scenario(
            name: "day", policy: policy, until: Instant(sinceOrigin: .seconds(24 * 3600)), steps: steps)
        var simulator = Simulator(scenario: scenario, tracing: false)
        let start = Stopwatch()
        let result = simulator.run()
        let seconds = start.elapsedSeconds
        print(
            "24-hour day of \(count) apps: \(result.eventCount) events, "
                + "\(result.record.launches.count) launches, \(result.record.terminations.count) terminations "
                + "in \(format(seconds * 1000)) ms")
    }
}

/// A monotonic stopwatch (`clock_gettime(CLOCK_MONOTONIC)`), which also measures the CPU time
/// of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): on a shared machine the wall time includes
/// time the benchmark waited for a core, the CPU time does not.
struct Stopwatch {
    private let start = Stopwatch.nanoseconds()
    private let cpuStart = Stopwatch.nanoseconds(CLOCK_THREAD_CPUTIME_ID)

    var elapsedSeconds: Double { Double(Stopwatch.nanoseconds() - start) / 1e9 }
    var elapsedMicroseconds: Double { Double(Stopwatch.nanoseconds() - start) / 1e3 }
    /// CPU seconds the calling thread spent since the start.
    var cpuSeconds: Double { Double(Stopwatch.nanoseconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart) / 1e9 }

    static func nanoseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// "= X M events/s (Y M events/s of CPU time)" for `events` in `seconds` of wall time.
func rate(_ events: Int, _ stopwatch: Stopwatch, seconds: Double) -> String {
    let cpu = stopwatch.cpuSeconds
    return
        "= \(format(Double(events) / seconds / 1e6)) M events/s (\(format(Double(events) / cpu / 1e6)) M per CPU second)"
}

/// Prints the median, p99 and maximum of `samples`.
func report(_ label: String, _ samples: [Double], unit: String, extra: String? = nil) {
    let sorted = samples.sorted()
    let median = sorted[sorted.count / 2]
    let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
    var line =
        "\(label): median \(format(median)) \(unit), p99 \(format(p99)) \(unit), max \(format(sorted.last!)) \(unit)"
    if let extra { line += "; \(extra)" }
    print(line)
}

/// Formats with two decimals.
func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return "\(scaled)"
}
