import Foundation
import Logging
import WardenAPI
import WardenCgroup
import WardenClient
import WardenCore
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Benchmarks of the daemon on real apps in real groups: a served daemon's start-up, idle cost
/// and API throughput with 100 apps, the lateness of 1,000 concurrent deadlines, pressure → kill latency on a small device,
/// and the same device under the kernel's own memcg OOM killer. Needs root, a cgroup2 mount
/// with freeze and the `ballast` executable; prints a line per figure. Every group, process,
/// socket and directory it creates is removed, whether a benchmark succeeds or not.
enum DaemonBenchmarks {
    /// The device's memory: the limit of appwarden's root group.
    static let deviceLimit: Int64 = 512 << 20
    /// The policy's `critical_enter`: memory is critical when less than this is left.
    static let criticalEnter: Int64 = 64 << 20

    /// Runs the daemon benchmarks (`serve`: only the figures of a served daemon, `runs` times) and
    /// prints their figures; skips with a note when the host cannot.
    static func run(only selection: String? = nil, runs: Int = 3) async throws {
        guard getuid() == 0, (try? CgroupLayout.read())?.freezeSource == .unified else {
            print("daemon benchmarks skipped: they need root and a cgroup2 mount with cgroup.freeze")
            return
        }
        guard let ballast = ballastPath() else {
            print(
                "daemon benchmarks skipped: no ballast executable next to WardenBenchmarks or in APPWARDEN_BALLAST "
                    + "(build it with `swift build -c release --product ballast`)")
            return
        }
        try await served(ballast: ballast, runs: runs)
        if selection == "serve" { return }
        await deadlineLateness(count: 1000)
        try await pressureToKill(ballast: ballast, rounds: 25)
        try await kernelKiller(ballast: ballast)
    }

    /// The ballast executable: `APPWARDEN_BALLAST`, or next to this executable.
    static func ballastPath() -> String? {
        if let override = ProcessInfo.processInfo.environment["APPWARDEN_BALLAST"] {
            return access(override, X_OK) == 0 ? override : nil
        }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        let candidate = (executable as NSString).deletingLastPathComponent + "/ballast"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }

    // MARK: Deadline lateness

    /// 1,000 fetch deadlines armed at once over the next second, on the daemon's timer
    /// machinery (one deadline queue served by one task sleeping on `WardenClock`, one queue of
    /// fired timers): how late each fired timer is taken from the queue.
    static func deadlineLateness(count: Int) async {
        let timers = DeadlineTimers()
        let lateness = await timers.measure(count: count, spread: .seconds(1), lead: .milliseconds(500))
        let millis = lateness.map { seconds($0) * 1000 }.sorted()
        print(
            "\(count) concurrent deadlines over 1 s, lateness when handled: p50 \(format(percentile(millis, 0.5))) ms, "
                + "p99 \(format(percentile(millis, 0.99))) ms, max \(format(millis.last ?? 0)) ms (goal p99 < 10 ms)")
    }

    // MARK: Pressure → kill on a small device

    /// The device policy: three apps that are suspended, a steady foreground app for the
    /// injected rounds and a growing one for the real-pressure round.
    static let devicePolicy = """
        foreground_slots = 1
        [memory]
        warning_enter = "128MiB"
        warning_exit = "160MiB"
        critical_enter = "64MiB"
        critical_exit = "96MiB"
        kill_foreground = false
        [apps.large]
        command = "BALLAST"
        args = ["--hold", "96"]
        [apps.large.background]
        grace = "1s"
        [apps.medium]
        command = "BALLAST"
        args = ["--hold", "64"]
        [apps.medium.background]
        grace = "1s"
        [apps.small]
        command = "BALLAST"
        args = ["--hold", "32"]
        [apps.small.background]
        grace = "1s"
        [apps.front]
        command = "BALLAST"
        args = ["--hold", "16"]
        [apps.grower]
        command = "BALLAST"
        args = ["--hold", "16", "--grow", "4", "--every", "100ms"]
        """

    static let suspendedApps = ["large", "medium", "small"]

    /// A 512 MiB device with three suspended apps and a foreground app: `.pressure(.critical)`
    /// injected through the daemon's queue, timed to the victim's death (an upper bound on the
    /// kill syscall); then one round where the foreground app grows until memory is critical
    /// for real and the daemon's own sampling finds it.
    static func pressureToKill(ballast: String, rounds: Int) async throws {
        let apps = suspendedApps + ["front", "grower"]
        try await Workspace.run(policy: devicePolicy, apps: apps, ballast: ballast) { workspace in
            let daemon = try await workspace.startDaemon()
            do {
                let device = try workspace.limitDevice(to: deviceLimit)
                var toDeath: [Double] = []
                var byApp: [String: [Double]] = [:]
                var toReturn: [Double] = []
                var orders: [String: Int] = [:]
                var misses = 0
                for _ in 0..<rounds {
                    let pids = try await prepareDevice(daemon, foreground: "front")
                    let watch = DeathWatch(pids)
                    var order: [String] = []
                    for _ in 0..<suspendedApps.count {
                        let before = watch.deaths().count
                        let start = ContinuousClock.now
                        _ = try await daemon.perform(.pressure(.critical))
                        let returned = ContinuousClock.now
                        let died = await eventually(within: .seconds(2)) { watch.deaths().count > before }
                        guard died, let death = watch.deaths().sorted(by: { $0.value < $1.value }).last else {
                            misses += 1
                            continue
                        }
                        order.append(death.key)
                        toDeath.append(seconds(death.value - start) * 1000)
                        byApp[death.key, default: []].append(seconds(death.value - start) * 1000)
                        toReturn.append(seconds(returned - start) * 1000)
                    }
                    watch.stop()
                    orders[order.joined(separator: ", "), default: 0] += 1
                }
                toDeath.sort()
                toReturn.sort()
                print(
                    "injected critical pressure → victim dead (512 MiB device, 3 suspended apps): "
                        + "p50 \(format(percentile(toDeath, 0.5))) ms, p99 \(format(percentile(toDeath, 0.99))) ms, "
                        + "max \(format(toDeath.last ?? 0)) ms over \(toDeath.count) kills (goal p99 < 10 ms); "
                        + "event handled (group empty, memory re-measured): p50 \(format(percentile(toReturn, 0.5))) ms, "
                        + "p99 \(format(percentile(toReturn, 0.99))) ms; median to death by victim "
                        + suspendedApps.map { "\($0) \(format(percentile((byApp[$0] ?? []).sorted(), 0.5))) ms" }
                        .joined(separator: ", ") + "; kill orders \(describe(orders))"
                        + (misses > 0 ? "; \(misses) events killed nothing" : ""))
                _ = try await daemon.perform(.forceQuit(app: "front"))
                try await realPressure(daemon, device: device)
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    /// Opens the three apps to be suspended, then `foreground`, and waits until the three are
    /// suspended (frozen); returns their pids by app.
    static func prepareDevice(_ daemon: WardenDaemon, foreground: String) async throws -> [Int32: String] {
        for name in suspendedApps + [foreground] {
            _ = try await daemon.perform(.open(app: name))
            let launched = await eventually(within: .seconds(10)) {
                await daemon.app(named: name)?.pids.isEmpty == false
            }
            guard launched else { throw Failure("App \"\(name)\" did not start within 10 s.") }
        }
        let suspended = await eventually(within: .seconds(15)) {
            for name in suspendedApps {
                if await daemon.app(named: name)?.state != "suspended" { return false }
            }
            return true
        }
        guard suspended else { throw Failure("The background apps were not suspended within 15 s.") }
        var pids: [Int32: String] = [:]
        for name in suspendedApps {
            for pid in await daemon.app(named: name)?.pids ?? [] { pids[pid] = name }
        }
        return pids
    }

    /// The growing foreground app pushes the device into critical memory; from the moment less
    /// than `critical_enter` is left to each victim's death.
    static func realPressure(_ daemon: WardenDaemon, device: Device) async throws {
        var pids = try await prepareDevice(daemon, foreground: "grower")
        for pid in await daemon.app(named: "grower")?.pids ?? [] { pids[pid] = "grower" }
        let result = await watchDevice(
            device, pids: pids,
            until: { deaths in
                deaths["grower"] != nil || suspendedApps.allSatisfy { deaths[$0] != nil }
            })
        print("daemon, real pressure (grower +40 MiB/s, samples every 1 s, PSI): " + result)
    }

    // MARK: The kernel's memcg OOM killer

    /// The same device without appwarden: a 512 MiB memory group holding the three idle apps
    /// and the growing one; which process the kernel kills, and when.
    static func kernelKiller(ballast: String) async throws {
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
            let held = await eventually(within: .seconds(10)) { (readNumber(device.usageFile) ?? 0) >= 190 << 20 }
            guard held else { throw Failure("The idle apps did not take their memory within 10 s.") }
            let grower = try spawn(
                ballast, ["--hold", "16", "--grow", "4", "--every", "100ms"], into: device.procsFile)
            processes[grower] = "grower"
            let result = await watchDevice(device, pids: processes, until: { !$0.isEmpty })
            print("kernel memcg OOM killer, same device and workload: " + result)
        }
    }

    /// Spawns `executable` through a shell that first moves itself into the group.
    static func spawn(_ executable: String, _ arguments: [String], into procsFile: String) throws -> Int32 {
        let script =
            "echo $$ > '\(procsFile)' && exec '\(executable)' " + arguments.joined(separator: " ")
            + " >/dev/null 2>&1"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] =
            ["/bin/sh", "-c", script].map { (text: String) in strdup(text) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        guard status == 0 else { throw Failure("Could not start \(executable): errno \(status).") }
        return pid
    }

    /// Watches usage and the processes at 1 ms until `done` holds for the deaths (or 60 s pass),
    /// and describes when memory became critical, when it reached the limit and who died when.
    static func watchDevice(
        _ device: Device, pids: [Int32: String], until done: @Sendable ([String: ContinuousClock.Instant]) -> Bool
    ) async -> String {
        let watch = DeathWatch(pids)
        defer { watch.stop() }
        let start = ContinuousClock.now
        var critical: ContinuousClock.Instant?
        var full: ContinuousClock.Instant?
        var deaths: [String: ContinuousClock.Instant] = [:]
        while ContinuousClock.now - start < .seconds(60) {
            let now = ContinuousClock.now
            let usage = readNumber(device.usageFile) ?? 0
            if critical == nil && usage >= deviceLimit - criticalEnter { critical = now }
            if full == nil && usage >= deviceLimit - (1 << 20) { full = now }
            deaths = watch.deaths()
            if done(deaths) { break }
            try? await Task.sleep(for: .milliseconds(1))
        }
        try? await Task.sleep(for: .milliseconds(200))
        deaths = watch.deaths()
        var parts: [String] = []
        for (name, instant) in deaths.sorted(by: { $0.value < $1.value }) {
            var part = name + " died"
            if let critical { part += " \(format(seconds(instant - critical) * 1000)) ms after memory became critical" }
            if let full {
                part += ", \(format(seconds(instant - full) * 1000)) ms after usage reached the limit"
            } else {
                part += ", usage never reached the limit"
            }
            parts.append(part)
        }
        if parts.isEmpty { parts.append("nobody died within 60 s") }
        if let kills = device.oomKills() { parts.append("kernel OOM kills in the group: \(kills)") }
        return parts.joined(separator: "; ")
    }

    // MARK: Measuring

    /// CPU seconds (user and system) this process has used.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    /// This process's resident memory (`VmRSS`) in MiB.
    static func residentMebibytes() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kibibytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kibibytes / 1024
        }
        return 0
    }

    /// The number a cgroup file holds; nil when it is missing or says "max".
    static func readNumber(_ path: String) -> Int64? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The value at quantile `q` of sorted `values` (nearest rank).
    static func percentile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let rank = Int((q * Double(values.count)).rounded(.up)) - 1
        return values[min(values.count - 1, max(0, rank))]
    }

    static func format(_ value: Double, digits: Int = 2) -> String {
        String(format: "%.\(digits)f", value)
    }

    static func describe(_ orders: [String: Int]) -> String {
        orders.sorted { $0.value > $1.value }.map { "[\($0.key)] ×\($0.value)" }.joined(separator: ", ")
    }

    /// Polls `condition` every millisecond until it holds or `timeout` passes; returns whether it held.
    static func eventually(within timeout: Duration, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return await condition()
    }
}
