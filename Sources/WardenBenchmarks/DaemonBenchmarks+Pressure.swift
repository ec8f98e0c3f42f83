import Foundation
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Pressure → kill on a small device: injected critical pressure with and without
/// `process_mrelease`, the driver's kill alone (the floor under it), a foreground app growing
/// at 40, 160 and 1,000 MiB/s under the daemon, and the same growth under the kernel's memcg
/// OOM killer alone.
extension DaemonBenchmarks {
    /// A growth rate of the foreground app: the app's name in the policy and its ballast arguments.
    struct Growth: Sendable {
        var app: String
        var mebibytesPerSecond: Int
        var arguments: [String]
    }

    static let growthRates = [
        Growth(app: "grow40", mebibytesPerSecond: 40, arguments: ["--grow", "4", "--every", "100ms"]),
        Growth(app: "grow160", mebibytesPerSecond: 160, arguments: ["--grow", "16", "--every", "100ms"]),
        Growth(app: "grow1000", mebibytesPerSecond: 1000, arguments: ["--grow", "10", "--every", "10ms"]),
    ]

    /// The device policy with one growing foreground app per rate.
    static var pressurePolicy: String {
        var policy = devicePolicy
        for growth in growthRates {
            let arguments = (["--hold", "16"] + growth.arguments).map { "\"\($0)\"" }.joined(separator: ", ")
            policy += "\n[apps.\(growth.app)]\ncommand = \"BALLAST\"\nargs = [\(arguments)]\n"
        }
        return policy
    }

    /// Every pressure benchmark, `rounds` rounds each (the kernel alone: `kernelRounds` per rate).
    static func pressureBenchmarks(ballast: String, rounds: Int, kernelRounds: Int) async throws {
        for releasing in [true, false] {
            try await injectedCritical(ballast: ballast, rounds: rounds, releasingMemory: releasing)
        }
        for releasing in [true, false] {
            try await killAlone(ballast: ballast, rounds: rounds, releasingMemory: releasing)
        }
        for growth in growthRates {
            try await growingForeground(ballast: ballast, growth: growth, rounds: rounds)
            try await kernelAlone(ballast: ballast, growth: growth, rounds: kernelRounds)
        }
    }

    /// Opens the three apps to be suspended and sends them home; returns their pids by app once
    /// all three are suspended (frozen).
    static func suspendThree(_ daemon: WardenDaemon) async throws -> [Int32: String] {
        for name in suspendedApps {
            _ = try await daemon.perform(.open(app: name))
            let launched = await eventually(within: .seconds(10)) {
                await daemon.control.app(named: name)?.pids.isEmpty == false
            }
            guard launched else { throw Failure("App \"\(name)\" did not start within 10 s.") }
        }
        _ = try await daemon.perform(.home)
        let suspended = await eventually(within: .seconds(15)) {
            for name in suspendedApps where await daemon.control.app(named: name)?.state != .suspended { return false }
            return true
        }
        guard suspended else { throw Failure("The background apps were not suspended within 15 s.") }
        // Let the sweeps measure the three, so that the ranking knows their footprints.
        try await Task.sleep(for: .milliseconds(1200))
        var pids: [Int32: String] = [:]
        for name in suspendedApps {
            for pid in await daemon.control.app(named: name)?.pids ?? [] { pids[pid] = name }
        }
        return pids
    }

    /// Injected `.pressure(.critical)` → the 96 MiB app dead, with or without `process_mrelease`.
    static func injectedCritical(ballast: String, rounds: Int, releasingMemory: Bool) async throws {
        try await Workspace.run(policy: devicePolicy, apps: suspendedApps + ["front"], ballast: ballast) {
            workspace in
            var options = workspace.options
            options.releasesMemoryOnKill = releasingMemory
            let daemon = try await WardenDaemon.start(options: options, logger: Workspace.quietLogger)
            do {
                _ = try workspace.limitDevice(to: deviceLimit)
                var times: [Double] = []
                var others: [String: Int] = [:]
                for _ in 0..<rounds {
                    let pids = try await suspendThree(daemon)
                    let watch = DeathWatch(pids)
                    let start = ContinuousClock.now
                    _ = try await daemon.perform(.pressure(.critical))
                    let died = await eventually(within: .seconds(2)) { !watch.deaths().isEmpty }
                    let deaths = watch.deaths()
                    watch.stop()
                    guard died, let first = deaths.min(by: { $0.value < $1.value }) else { continue }
                    if first.key == "large" {
                        times.append(seconds(first.value - start) * 1000)
                    } else {
                        others[first.key, default: 0] += 1
                    }
                }
                times.sort()
                print(
                    "injected critical → 96 MiB app dead, process_mrelease \(releasingMemory ? "on" : "off"): "
                        + "p50 \(format(percentile(times, 0.5))) ms, p99 \(format(percentile(times, 0.99))) ms, "
                        + "range \(format(times.first ?? .nan))–\(format(times.last ?? .nan)) ms over \(times.count) "
                        + "of \(rounds) rounds (goal p99 < 5 ms with it)"
                        + (others.isEmpty ? "" : "; another app died first: \(describe(others))"))
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    /// The floor under the injected figure: a frozen process holding 96 MiB, in a group of its
    /// own on the same device, killed through the same driver call the daemon makes
    /// (`cgroup.kill`, with or without `process_mrelease`), with no event, decision or journal
    /// before it, until its death.
    static func killAlone(ballast: String, rounds: Int, releasingMemory: Bool) async throws {
        try await Workspace.run(policy: devicePolicy, apps: suspendedApps + ["front"], ballast: ballast) {
            workspace in
            let daemon = try await WardenDaemon.start(options: workspace.options, logger: Workspace.quietLogger)
            do {
                _ = try workspace.limitDevice(to: deviceLimit)
                let driver = try workspace.driver()
                let group = try await driver.createGroup(named: "floor")
                var times: [Double] = []
                for _ in 0..<rounds {
                    let pid = try ShellSpawn.start("exec '\(ballast)' --hold 96 > /dev/null")
                    try await driver.attach(pid, to: group)
                    try await Task.sleep(for: .milliseconds(600))
                    try await driver.freeze(group)
                    let watch = DeathWatch([pid: "floor"])
                    let start = ContinuousClock.now
                    try await driver.kill(group, releasingMemory: releasingMemory, waitingAtMost: .seconds(5))
                    let died = await eventually(within: .seconds(2)) { !watch.deaths().isEmpty }
                    let death = watch.deaths().values.min()
                    watch.stop()
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    try await driver.thaw(group)
                    if died, let death { times.append(seconds(death - start) * 1000) }
                }
                try await driver.remove(group)
                times.sort()
                print(
                    "the driver's kill alone → 96 MiB process dead, process_mrelease \(releasingMemory ? "on" : "off"): "
                        + "p50 \(format(percentile(times, 0.5))) ms, p99 \(format(percentile(times, 0.99))) ms, "
                        + "range \(format(times.first ?? .nan))–\(format(times.last ?? .nan)) ms over \(times.count) "
                        + "of \(rounds) rounds")
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    /// The growing foreground app pushes the device past `critical_enter`; from that crossing
    /// to the first victim's death, whether the foreground app lived and whether the kernel's
    /// OOM killer acted. A round ends at the first death, when the benchmark kills the grower.
    static func growingForeground(ballast: String, growth: Growth, rounds: Int) async throws {
        let apps = suspendedApps + ["front"] + growthRates.map(\.app)
        try await Workspace.run(policy: pressurePolicy, apps: apps, ballast: ballast) { workspace in
            let daemon = try await workspace.startDaemon()
            do {
                let device = try workspace.limitDevice(to: deviceLimit)
                let result = try await growingRounds(
                    daemon, device: device, critical: deviceLimit - criticalEnter, growth: growth, rounds: rounds)
                print("daemon, foreground growing \(growth.mebibytesPerSecond) MiB/s: " + result.description)
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    /// What the rounds of a growing foreground app gave.
    struct GrowingRounds: CustomStringConvertible {
        /// From the crossing of `critical_enter` to the first victim's death, sorted, in ms.
        var times: [Double] = []
        var rounds = 0
        var victims: [String: Int] = [:]
        var growerDied = 0
        var noDeath = 0
        var oomKills = 0

        var description: String {
            "critical_enter crossed → first victim dead p50 \(format(percentile(times, 0.5))) ms, "
                + "p99 \(format(percentile(times, 0.99))) ms, range \(format(times.first ?? .nan))–"
                + "\(format(times.last ?? .nan)) ms over \(times.count) of \(rounds) rounds; first victims "
                + describe(victims) + "; foreground app died first in \(growerDied) rounds"
                + "; kernel OOM kills in the device: \(oomKills)"
                + (noDeath > 0 ? "; \(noDeath) rounds without a death in 30 s" : "")
        }
    }

    /// `rounds` rounds on a started daemon: the three apps suspended, the grower opened until
    /// the first death (`critical`: the device usage at which `critical_enter` is crossed).
    static func growingRounds(
        _ daemon: WardenDaemon, device: Device, critical: Int64, growth: Growth, rounds: Int
    ) async throws -> GrowingRounds {
        var result = GrowingRounds(rounds: rounds)
        let oomBefore = device.oomKills() ?? 0
        for _ in 0..<rounds {
            var pids = try await suspendThree(daemon)
            _ = try await daemon.perform(.open(app: growth.app))
            let launched = await eventually(within: .seconds(10)) {
                await daemon.control.app(named: growth.app)?.pids.isEmpty == false
            }
            let growerPids = await daemon.control.app(named: growth.app)?.pids ?? []
            guard launched else { throw Failure("App \"\(growth.app)\" did not start within 10 s.") }
            for pid in growerPids { pids[pid] = growth.app }
            let watch = DeathWatch(pids, usageFile: device.usageFile, marks: [critical])
            _ = await eventually(within: .seconds(30)) { !watch.deaths().isEmpty }
            for pid in growerPids { kill(pid, SIGKILL) }
            let deaths = watch.deaths()
            let crossed = watch.marksReached()[critical]
            watch.stop()
            guard let first = deaths.min(by: { $0.value < $1.value }) else {
                result.noDeath += 1
                continue
            }
            result.victims[first.key, default: 0] += 1
            if first.key == growth.app { result.growerDied += 1 }
            if let crossed, first.key != growth.app {
                result.times.append(seconds(first.value - crossed) * 1000)
            }
            _ = await eventually(within: .seconds(5)) {
                await daemon.control.app(named: growth.app)?.state == .notRunning
            }
        }
        result.times.sort()
        result.oomKills = (device.oomKills() ?? 0) - oomBefore
        return result
    }

    /// The same device and growth without appwarden: which process the kernel kills, and when.
    static func kernelAlone(ballast: String, growth: Growth, rounds: Int) async throws {
        var results: [String] = []
        for _ in 0..<rounds {
            try await Workspace.run(policy: devicePolicy, apps: ["apps"], ballast: ballast) { workspace in
                let device = try await workspace.plainDevice(limit: deviceLimit)
                var processes: [Int32: String] = [:]
                defer {
                    for pid in processes.keys { kill(pid, SIGKILL) }
                    var status: Int32 = 0
                    for pid in processes.keys { waitpid(pid, &status, 0) }
                }
                for (name, size) in [("large", 96), ("medium", 64), ("small", 32)] {
                    let pid = try spawn(ballast, ["--hold", "\(size)"], into: device.procsFile)
                    processes[pid] = name
                }
                let held = await eventually(within: .seconds(10)) {
                    (readNumber(device.usageFile) ?? 0) >= 190 << 20
                }
                guard held else { throw Failure("The idle apps did not take their memory within 10 s.") }
                let grower = try spawn(ballast, ["--hold", "16"] + growth.arguments, into: device.procsFile)
                processes[grower] = "grower"
                let critical = deviceLimit - criticalEnter
                let full = deviceLimit - (1 << 20)
                let watch = DeathWatch(processes, usageFile: device.usageFile, marks: [critical, full])
                _ = await eventually(within: .seconds(30)) { !watch.deaths().isEmpty }
                let deaths = watch.deaths()
                let marks = watch.marksReached()
                watch.stop()
                guard let first = deaths.min(by: { $0.value < $1.value }) else {
                    results.append("nobody died in 30 s")
                    return
                }
                var text = first.key
                if let crossed = marks[critical] { text += " \(format(seconds(first.value - crossed) * 1000)) ms" }
                if let limit = marks[full] {
                    text += " (\(format(seconds(first.value - limit) * 1000)) ms after the limit)"
                }
                results.append(text + ", OOM kills \(device.oomKills() ?? 0)")
            }
        }
        print(
            "kernel memcg OOM killer alone, growing \(growth.mebibytesPerSecond) MiB/s, first death after "
                + "critical_enter was crossed, \(rounds) rounds: " + results.joined(separator: "; "))
    }
}
