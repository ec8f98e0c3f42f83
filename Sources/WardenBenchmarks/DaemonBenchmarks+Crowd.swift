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

/// The kill path beside a crowd: the device of the pressure benchmarks with `crowd` more
/// suspended apps (`sleep`, a few hundred KiB each) in it. How long opening them one by one
/// takes, `appwarden status` and `GET /v1/apps` with them, the daemon's idle CPU while they are
/// all suspended, and crossing `critical_enter` → the largest suspended app dead, which should
/// not grow with the number of apps.
extension DaemonBenchmarks {
    /// The pressure policy with `crowd` more apps, each suspended 100 ms after it leaves the
    /// foreground.
    static func crowdPolicy(crowd: Int) -> (policy: String, names: [String]) {
        let names = (0..<crowd).map { "crowd\(String(format: "%04d", $0))" }
        var policy = pressurePolicy + "\n[background]\ngrace = \"100ms\"\n"
        for name in names {
            policy += "[apps.\(name)]\ncommand = \"/bin/sleep\"\nargs = [\"infinity\"]\n"
        }
        return (policy, names)
    }

    /// Runs the crowd benchmark: the daemon serves its socket in this process, the growing
    /// foreground app at 160 MiB/s for `rounds` rounds.
    static func crowded(ballast: String, crowd: Int, rounds: Int) async throws {
        let (policy, names) = crowdPolicy(crowd: crowd)
        let growth = growthRates[1]
        let apps = suspendedApps + ["front"] + growthRates.map(\.app) + names
        try await Workspace.run(policy: policy, apps: apps, ballast: ballast) { workspace in
            var options = workspace.options
            options.serving = DaemonServing(
                adminGroup: nil, metricsAddress: nil, notifier: SystemdNotifier(environment: [:]))
            let daemon = try await WardenDaemon.start(options: options, logger: Workspace.quietLogger)
            do {
                let opening = ContinuousClock.now
                for name in names { _ = try await daemon.perform(.open(app: name)) }
                let opened = seconds(ContinuousClock.now - opening)
                _ = try await daemon.perform(.home)
                let suspended = await eventually(within: .seconds(120)) {
                    let states = Dictionary(
                        uniqueKeysWithValues: ((try? await daemon.control.apps()) ?? []).map { ($0.name, $0.state) })
                    return names.allSatisfy { states[$0] == .suspended }
                }
                guard suspended else { throw Failure("The \(crowd) apps were not all suspended within 120 s.") }
                let settled = seconds(ContinuousClock.now - opening)
                print(
                    "crowd of \(crowd): opened one by one in \(format(opened, digits: 1)) s, all suspended after "
                        + "\(format(settled, digits: 1)) s")

                let device = try workspace.limitDevice(to: 1 << 40)
                let crowdUsage = readNumber(device.usageFile) ?? 0
                let limit = deviceLimit + crowdUsage
                try String(limit).write(toFile: device.limitFile, atomically: false, encoding: .utf8)
                print(
                    "crowd of \(crowd): \(format(Double(crowdUsage) / 1_048_576, digits: 1)) MiB charged; device limit 512 MiB above it"
                )

                try await Task.sleep(for: .seconds(6))
                let cpuBefore = processCPUSeconds()
                let idle = Duration.seconds(30)
                try await Task.sleep(for: idle)
                let idleCPU = (processCPUSeconds() - cpuBefore) / seconds(idle) * 100
                print(
                    "crowd of \(crowd): idle CPU of this process (the daemon) over 30 s: \(format(idleCPU, digits: 3)) %"
                )

                printReadTimes(socketPath: options.socketPath, crowd: crowd)

                let result = try await growingRounds(
                    daemon, device: device, critical: limit - criticalEnter, growth: growth, rounds: rounds)
                print(
                    "crowd of \(crowd), foreground growing \(growth.mebibytesPerSecond) MiB/s: " + result.description)
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    /// `GET /v1/apps` on a kept-open connection, and `appwarden status` as a user runs it (a new
    /// process each time), 20 times each.
    static func printReadTimes(socketPath: String, crowd: Int) {
        var requests: [Double] = []
        if let client = KeepAliveClient(socketPath: socketPath) {
            for _ in 0..<20 {
                let start = ContinuousClock.now
                guard client.request("GET", "/v1/apps")?.status == 200 else { break }
                requests.append(seconds(ContinuousClock.now - start) * 1000)
            }
        }
        requests.sort()
        print(
            "crowd of \(crowd): GET /v1/apps p50 \(format(percentile(requests, 0.5))) ms, "
                + "max \(format(requests.last ?? .nan)) ms over \(requests.count) requests")
        guard let appwarden = appwardenPath() else {
            print("crowd of \(crowd): `appwarden status` skipped: no appwarden executable next to WardenBenchmarks")
            return
        }
        // Started from a process of its own, as from a user's shell: a child of this process would
        // first copy the daemon's descriptor table (6,000 entries beside 1,000 apps), which costs
        // the child ~2.6 ms of CPU that no user's `appwarden status` pays.
        var runs: [Double] = []
        var cpu: [Double] = []
        for line in launchedRuns(20, of: [appwarden, "status"], socketPath: socketPath) {
            let figures = line.split(separator: " ").compactMap { Double($0) }
            guard figures.count == 2 else {
                // What a failing run wrote on its standard error, which shares the pipe.
                print("crowd of \(crowd): `appwarden status` said: \(line)")
                continue
            }
            runs.append(figures[0])
            cpu.append(figures[1])
        }
        runs.sort()
        cpu.sort()
        // The command's own CPU tells its cost from the host's: wall time waits for the daemon's
        // answer and for a core.
        print(
            "crowd of \(crowd): `appwarden status` (\(appwarden), a new process each time, from a process of its own) p50 \(format(percentile(runs, 0.5))) ms, "
                + "range \(format(runs.first ?? .nan))–\(format(runs.last ?? .nan)) ms over \(runs.count) runs; "
                + "its CPU p50 \(format(percentile(cpu, 0.5))) ms")
    }

    /// The lines `WardenBenchmarks spawn-runs` prints for `count` runs of `command` against the
    /// daemon at `socketPath`, started from a new WardenBenchmarks process that holds only the
    /// standard three descriptors, and whatever a failing run wrote on its standard error.
    static func launchedRuns(_ count: Int, of command: [String], socketPath: String) -> [Substring] {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return []
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return [] }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let quoted = ([executable, "spawn-runs", String(count)] + command).map { "'\($0)'" }.joined(separator: " ")
        let pid = try? ShellSpawn.start(
            "APPWARDEN_SOCKET='\(socketPath)' exec \(quoted)", descriptors: .init(inputFromNull: true, output: ends[1]))
        close(ends[1])
        let output = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true).readDataToEndOfFile()
        if let pid {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        return String(decoding: output, as: UTF8.self).split(separator: "\n")
    }

    /// `WardenBenchmarks spawn-runs COUNT PROGRAM [ARGUMENTS…]`: runs the program `count` times,
    /// one after the other, each with `posix_spawn` and its output to /dev/null, and prints for
    /// each run its wall time to exit and its CPU time (user and system, `wait4`), in
    /// milliseconds. Stops at the first run that fails or cannot start; the program's standard
    /// error stays this process's.
    static func spawnRuns(_ count: Int, of command: [String]) {
        // The program's output goes to /dev/null; the figures to what was standard output.
        let figures = fcntl(1, F_DUPFD_CLOEXEC, 3)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard let program = command.first, figures >= 0, null >= 0, dup2(null, 1) == 1 else { return }
        let results = FileHandle(fileDescriptor: figures, closeOnDealloc: true)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        for _ in 0..<count {
            let start = ContinuousClock.now
            var pid: pid_t = 0
            guard posix_spawn(&pid, program, nil, nil, &argv, environ) == 0 else { return }
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            guard status == 0 else { return }
            let wall = seconds(ContinuousClock.now - start) * 1000
            let cpu = (seconds(usage.ru_utime) + seconds(usage.ru_stime)) * 1000
            results.write(Data("\(wall) \(cpu)\n".utf8))
        }
    }
}
