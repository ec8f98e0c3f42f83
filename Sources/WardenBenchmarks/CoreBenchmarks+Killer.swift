import WardenCore

extension CoreBenchmarks {
    /// A critical memory sample handed to the core with `count` suspended apps and a foreground
    /// app: the victim chosen and its kill report written, 20 rounds, each after a normal sample
    /// (the level leaves critical) and with the previous victim's exit handled.
    static func criticalSample(suspended count: Int) {
        let names = ["front"] + (0..<count).map { "app\($0)" }
        var lifecycle = Lifecycle(policy: Policy(apps: names.map { AppPolicy(name: $0) }))
        var now = Instant.zero
        var timers: [(TimerID, Instant)] = []
        var launches: [String: Int] = [:]
        func feed(_ event: LifecycleEvent) {
            let actions = (try? lifecycle.handle(event, at: now)) ?? []
            for case .armTimer(let id, let deadline) in actions { timers.append((id, deadline)) }
            for case .spawn(let app, let launch, _, _) in actions {
                launches[app] = launch
                feed(.launched(app: app, launch: launch))
            }
        }
        for (index, name) in names.enumerated() {
            now = now + .milliseconds(10)
            feed(.open(app: name))
            feed(.ready(app: name))
            feed(.footprint(app: name, bytes: Int64(1 << 20) + Int64(index)))
        }
        feed(.open(app: "front"))
        now = now + .seconds(60)
        let due = timers
        for (id, deadline) in due where deadline <= now { feed(.timerFired(id)) }
        let suspended = lifecycle.snapshots(at: now).filter { $0.state == .suspended }.count
        precondition(suspended == count, "\(suspended) of \(count) apps suspended")
        var samples: [Double] = []
        for _ in 0..<20 {
            now = now + .seconds(1)
            _ = try? lifecycle.handle(.memorySample(available: 400 << 20, total: 512 << 20), at: now)
            let start = Stopwatch()
            let actions = (try? lifecycle.handle(.memorySample(available: 1 << 20, total: 512 << 20), at: now)) ?? []
            samples.append(start.elapsedMicroseconds)
            let victims = actions.compactMap { action -> String? in
                if case .kill(let app, _) = action { app } else { nil }
            }
            precondition(victims.count == 1, "a critical sample killed \(victims)")
            feed(
                .processExited(
                    app: victims[0], launch: launches[victims[0]] ?? 0, end: .crashed(description: "SIGKILL")))
        }
        report("critical sample, \(count) suspended apps: victim chosen and reported", samples, unit: "µs")
    }
}
