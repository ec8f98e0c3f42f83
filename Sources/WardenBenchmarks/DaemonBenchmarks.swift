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

    /// Runs the daemon benchmarks and prints their figures (`serve`: only the figures of a served
    /// daemon, `runs` times, with `apps` suspended apps; `onlyPressure`: only the pressure ones; `crowd`: only the pressure
    /// figures beside that many more suspended apps); skips with a note when the
    /// host cannot. `rounds` is the number of rounds of each pressure benchmark, `kernelRounds`
    /// those of the kernel's OOM killer alone at each growth rate.
    static func run(
        only selection: String? = nil, runs: Int = 3, apps: Int = 100, onlyPressure: Bool = false, crowd: Int? = nil,
        rounds: Int = 20, kernelRounds: Int = 3
    ) async throws {
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
        // What the host's own reclaim took beside the figures (see `HostReclaimThreads`).
        let reclaimBefore = HostReclaimThreads.now()
        defer {
            print(
                "the host's reclaim threads over these benchmarks: "
                    + HostReclaimThreads.now().shares(since: reclaimBefore))
        }
        if let crowd {
            try await crowded(ballast: ballast, crowd: crowd, rounds: rounds)
            return
        }
        if !onlyPressure {
            try await served(ballast: ballast, runs: runs, apps: apps)
            if selection == "serve" { return }
            await deadlineLateness(count: 1000)
        }
        try await pressureBenchmarks(ballast: ballast, rounds: rounds, kernelRounds: kernelRounds)
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
    /// injected rounds and a growing one for the real-pressure round. No room is made before a
    /// launch: once the growing app's size is learned from its first launches, the daemon would
    /// kill for it before it is spawned, and the rounds time the killer's answer to the growth.
    static let devicePolicy = """
        foreground_slots = 1
        [memory]
        warning_enter = "128MiB"
        warning_exit = "160MiB"
        critical_enter = "64MiB"
        critical_exit = "96MiB"
        kill_foreground = false
        make_room = false
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

    /// Spawns `executable` through a shell that first moves itself into the group. The child
    /// starts with no signal blocked and every signal at its default action, whatever this
    /// process blocks or ignores (the daemon's threads block some).
    static func spawn(_ executable: String, _ arguments: [String], into procsFile: String) throws -> Int32 {
        let script =
            "echo $$ > '\(procsFile)' && exec '\(executable)' " + arguments.joined(separator: " ")
            + " >/dev/null 2>&1"
        do {
            return try ShellSpawn.start(script)
        } catch {
            throw Failure("Could not start \(executable): \(error).")
        }
    }

    // MARK: Measuring

    /// CPU seconds (user and system) this process has used.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
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
        duration.inSeconds
    }

    static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1e6
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
