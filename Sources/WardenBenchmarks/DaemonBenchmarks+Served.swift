import Foundation
import Synchronization
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon as a device runs it: a real `appwarden serve` process, measured from outside.
extension DaemonBenchmarks {
    /// One start of `appwarden serve` with its apps.
    struct ServedRun {
        /// From starting the process to the socket answering `GET /v1/health`.
        var startUp: Double
        /// Percent of one CPU over the idle window, every thread of the daemon.
        var idleCPU: Double
        var idleSeconds: Double
        /// `VmRSS` once every app was suspended, before the daemon was idle long enough to give
        /// memory back, MiB.
        var residentBusy: Double
        /// `VmRSS` after the idle window, MiB, and its anonymous and file-backed parts.
        var resident: Double
        var residentAnonymous: Double
        var residentFile: Double
        /// Resident and locked after the idle window (`Locked` of `smaps_rollup`), MiB, and the
        /// same after the request load.
        var locked: Double
        var lockedAfterLoad: Double
        /// `VmHWM` after the request load, MiB.
        var peakResident: Double
        /// Requests per second by path, and per CPU second of the daemon.
        var rates: [String: (wall: Double, perCPUSecond: Double, failures: Int)]
    }

    /// The `appwarden` executable: `APPWARDEN_BIN`, or next to this executable.
    static func appwardenPath() -> String? {
        if let override = ProcessInfo.processInfo.environment["APPWARDEN_BIN"] {
            return access(override, X_OK) == 0 ? override : nil
        }
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        let candidate = (executable as NSString).deletingLastPathComponent + "/appwarden"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }

    /// `apps` tiny apps (100 by default) under `appwarden serve`, `runs` times: start-up to the socket answering, CPU
    /// (all threads, `/proc/PID/task/*/schedstat`) and `VmRSS` over `idle` with every app
    /// suspended, then `GET /v1/health` and `GET /v1/apps` from 8 clients on kept-open connections.
    static func served(ballast: String, runs: Int, apps: Int = 100, idle: Duration = .seconds(30)) async throws {
        guard let appwarden = appwardenPath() else {
            print(
                "served daemon skipped: no appwarden executable next to WardenBenchmarks or in APPWARDEN_BIN "
                    + "(build it with `swift build -c release --product appwarden`)")
            return
        }
        // Without its relay program the daemon runs each app's log relay in a fork of itself; the
        // forks share its pages, and the figures that divide shared pages (`Locked`) would hide
        // a part of its memory that the package, which ships the program, does not share.
        let relay = (appwarden as NSString).deletingLastPathComponent + "/appwarden-relay"
        guard access(relay, X_OK) == 0 else {
            print(
                "served daemon skipped: no appwarden-relay beside \(appwarden) (the package ships one; build both "
                    + "with `bash scripts/build-static.sh appwarden`)")
            return
        }
        var size = stat()
        if stat(appwarden, &size) == 0 {
            print("appwarden executable: \(format(Double(size.st_size) / 1_048_576, digits: 1)) MiB (\(appwarden))")
        }
        let names = (0..<apps).map { "app\(String(format: apps > 1000 ? "%05d" : "%03d", $0))" }
        var policy = "foreground_slots = 1\n"
        for name in names {
            policy += """
                [apps.\(name)]
                command = "BALLAST"
                args = ["--hold", "1"]
                [apps.\(name).background]
                grace = "1s"

                """
        }
        var results: [ServedRun] = []
        for run in 1...runs {
            try await Workspace.run(policy: policy, apps: names, ballast: ballast) { workspace in
                let result = try await servedRun(appwarden: appwarden, workspace: workspace, names: names, idle: idle)
                let rates = result.rates.sorted { $0.key < $1.key }.map {
                    "\($0.key) \(format($0.value.wall, digits: 0))/s (\(format($0.value.perCPUSecond, digits: 0)) per daemon CPU s"
                        + ($0.value.failures > 0 ? ", \($0.value.failures) non-200" : "") + ")"
                }
                print(
                    "served run \(run): start-up \(format(result.startUp * 1000, digits: 1)) ms, idle CPU "
                        + "\(format(result.idleCPU, digits: 4)) % over \(format(result.idleSeconds, digits: 1)) s, RSS "
                        + "\(format(result.resident, digits: 1)) MiB (anonymous \(format(result.residentAnonymous, digits: 1)), "
                        + "file \(format(result.residentFile, digits: 1)), locked \(format(result.locked, digits: 1)); "
                        + "\(format(result.residentBusy, digits: 1)) MiB "
                        + "just after the apps were suspended; peak after load \(format(result.peakResident, digits: 1)) MiB), "
                        + rates.joined(separator: ", "))
                results.append(result)
            }
        }
        func summary(_ values: [Double], digits: Int) -> String {
            let sorted = values.sorted()
            let median =
                sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            return "median \(format(median, digits: digits)), range \(format(sorted.first ?? .nan, digits: digits))–"
                + "\(format(sorted.last ?? .nan, digits: digits)) (\(sorted.count) runs)"
        }
        print(
            "appwarden serve start-up to the socket answering, ms: \(summary(results.map { $0.startUp * 1000 }, digits: 1))"
        )
        print(
            "idle CPU with \(apps) suspended apps, % of one CPU (goal ≤ 0.02 with 100): \(summary(results.map(\.idleCPU), digits: 4))"
        )
        print("RSS with \(apps) apps, MiB (goal ≤ 12 with 100): \(summary(results.map(\.resident), digits: 1))")
        print("locked with \(apps) apps, MiB (goal ≤ 12 with 100): \(summary(results.map(\.locked), digits: 1))")
        print("locked after the request load, MiB: \(summary(results.map(\.lockedAfterLoad), digits: 1))")
        print("RSS just after the apps were suspended, MiB: \(summary(results.map(\.residentBusy), digits: 1))")
        print("peak RSS after the request load, MiB: \(summary(results.map(\.peakResident), digits: 1))")
        for path in ["/v1/health", "/v1/apps"] {
            print(
                "GET \(path), \(apps) apps, 8 keep-alive clients, requests/s: "
                    + summary(results.compactMap { $0.rates[path]?.wall }, digits: 0)
                    + "; per daemon CPU second: "
                    + summary(results.compactMap { $0.rates[path]?.perCPUSecond }, digits: 0))
        }
    }

    private static func servedRun(
        appwarden: String, workspace: Workspace, names: [String], idle: Duration
    ) async throws -> ServedRun {
        let options = workspace.options
        let logPath = workspace.directory + "/serve.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: appwarden)
        process.arguments = [
            "serve", "--policy", options.policyPath, "--socket", options.socketPath, "--state-dir",
            options.stateDirectory, "--cgroup-root", options.cgroupRoot, "--lock-dir", workspace.directory + "/lock",
            "--stop-apps-on-exit",
        ]
        process.standardOutput = log
        process.standardError = log
        let started = ContinuousClock.now
        try process.run()
        defer {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            try? log?.close()
        }
        let pid = process.processIdentifier
        var control: KeepAliveClient?
        while control == nil {
            if let client = KeepAliveClient(socketPath: options.socketPath),
                client.request("GET", "/v1/health")?.status == 200
            {
                control = client
            } else {
                guard process.isRunning, ContinuousClock.now - started < .seconds(30) else {
                    let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                    throw Failure("appwarden serve did not answer within 30 s:\n\(text)")
                }
                usleep(500)
            }
        }
        let startUp = seconds(ContinuousClock.now - started)
        guard let control else { throw Failure("No control connection.") }
        for name in names {
            guard control.request("POST", "/v1/open/\(name)")?.status == 200 else {
                throw Failure("POST /v1/open/\(name) was refused.")
            }
        }
        guard control.request("POST", "/v1/home")?.status == 200 else { throw Failure("POST /v1/home was refused.") }
        let wait = Duration.seconds(max(90, names.count / 10))
        let deadline = ContinuousClock.now + wait
        while suspendedCount(control) < names.count {
            guard ContinuousClock.now < deadline else {
                throw Failure("Only \(suspendedCount(control)) of \(names.count) apps were suspended after \(wait).")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let residentBusy = statusMebibytes(pid, field: "VmRSS")
        try await Task.sleep(for: .seconds(3))
        // Threads come and go (the runtime's idle workers end): each thread's figure is read
        // every 100 ms and its last one kept, so that a thread ending does not take its time along.
        let first = threadCPU(pid)
        var last = first
        let wallBefore = ContinuousClock.now
        while ContinuousClock.now - wallBefore < idle {
            try await Task.sleep(for: .milliseconds(100))
            last.merge(threadCPU(pid)) { max($0, $1) }
        }
        let idleSeconds = seconds(ContinuousClock.now - wallBefore)
        let idleNanoseconds = last.reduce(0) { $0 + $1.value - (first[$1.key] ?? 0) }
        let idleCPU = Double(idleNanoseconds) / 1e9 / idleSeconds * 100
        let resident = statusMebibytes(pid, field: "VmRSS")
        let residentAnonymous = statusMebibytes(pid, field: "RssAnon")
        let residentFile = statusMebibytes(pid, field: "RssFile")
        let locked = statusMebibytes(pid, field: "Locked", file: "smaps_rollup")
        var rates: [String: (wall: Double, perCPUSecond: Double, failures: Int)] = [:]
        for path in ["/v1/health", "/v1/apps"] {
            let cpu = threadCPUSeconds(pid)
            let (rate, failures) = keepAliveRate(socketPath: options.socketPath, path: path, clients: 8, seconds: 5)
            let used = threadCPUSeconds(pid) - cpu
            rates[path] = (rate, used > 0 ? rate * 5 / used : .nan, failures)
        }
        let peak = statusMebibytes(pid, field: "VmHWM")
        let lockedAfterLoad = statusMebibytes(pid, field: "Locked", file: "smaps_rollup")
        process.terminate()
        process.waitUntilExit()
        return ServedRun(
            startUp: startUp, idleCPU: idleCPU, idleSeconds: idleSeconds, residentBusy: residentBusy,
            resident: resident, residentAnonymous: residentAnonymous, residentFile: residentFile, locked: locked,
            lockedAfterLoad: lockedAfterLoad, peakResident: peak,
            rates: rates)
    }

    /// How many apps `GET /v1/apps` shows suspended.
    private static func suspendedCount(_ client: KeepAliveClient) -> Int {
        guard let answer = client.request("GET", "/v1/apps"), answer.status == 200 else { return 0 }
        let text = String(decoding: answer.body, as: UTF8.self)
        return text.components(separatedBy: #""state":"suspended""#).count - 1
    }

    /// Requests per second from `clients` threads, each on its own kept-open connection.
    static func keepAliveRate(socketPath: String, path: String, clients: Int, seconds: Double) -> (Double, Int) {
        let totals = Mutex((done: 0, failed: 0))
        let finished = DispatchSemaphore(value: 0)
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        for _ in 0..<clients {
            let thread = Thread {
                var ok = 0
                var bad = 0
                var client = KeepAliveClient(socketPath: socketPath)
                while ContinuousClock.now < end {
                    if let answer = client?.request("GET", path), answer.status == 200 {
                        ok += 1
                    } else {
                        bad += 1
                        client = KeepAliveClient(socketPath: socketPath)
                    }
                }
                totals.withLock {
                    $0.done += ok
                    $0.failed += bad
                }
                finished.signal()
            }
            thread.start()
        }
        for _ in 0..<clients { finished.wait() }
        let (done, failed) = totals.withLock { ($0.done, $0.failed) }
        return (Double(done) / seconds, failed)
    }

    /// CPU seconds every thread of `pid` now running has run.
    static func threadCPUSeconds(_ pid: Int32) -> Double {
        Double(threadCPU(pid).values.reduce(0, +)) / 1e9
    }

    /// The CPU time of each thread of `pid` now (`/proc/PID/task/*/schedstat`, nanoseconds).
    static func threadCPU(_ pid: Int32) -> [String: Int64] {
        let folder = "/proc/\(pid)/task"
        var times: [String: Int64] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let text = try? String(contentsOfFile: "\(folder)/\(task)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let nanoseconds = Int64(first)
            else { continue }
            times[task] = nanoseconds
        }
        return times
    }

    /// A `kB` field of `/proc/PID/status` in MiB.
    static func statusMebibytes(_ pid: Int32, field: String, file: String = "status") -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
        }
        return 0
    }
}
