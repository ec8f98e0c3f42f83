import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Benchmarks of the cgroup layer on the real kernel: sampling sweeps, freeze → frozen,
/// kill → empty, spawn into a group and pressure event → userspace. Needs root and a writable cgroup tree; prints a line per figure.
enum CgroupBenchmarks {
    /// Runs every cgroup benchmark and prints its figures; skips with a note when cgroups are not writable.
    static func run() async throws {
        guard getuid() == 0 else {
            print("cgroup benchmarks skipped: they need root and a writable cgroup tree")
            return
        }
        let layout = try CgroupLayout.read()
        let configuration = CgroupConfiguration(rootName: "appwarden-bench-\(getpid())", placement: .hierarchyRoot)
        let driver = try CgroupDrivers.make(layout: layout, configuration: configuration)
        print(
            "cgroup layout: \(layout.kind.rawValue), memory from \(layout.memorySource.rawValue), "
                + "freeze through \(layout.freezeSource.rawValue)")
        try await sampling(driver, groups: 1000)
        try await freezing(driver, rounds: 200)
        try await killing(driver, processes: 10, rounds: 20)
        try await killing(driver, processes: 100, rounds: 5)
        try await spawning(driver, rounds: 300)
        try await pressureEvents(driver, rounds: 100)
        try await driver.removeRoot()
    }

    /// One sweep of memory.current, and one of full statistics, over `count` groups.
    private static func sampling(_ driver: any CgroupDriver, groups count: Int) async throws {
        var groups: [AppGroup] = []
        defer {
            for group in groups { for path in group.allPaths { _ = rmdir(path) } }
        }
        for index in 0..<count { groups.append(try await driver.createGroup(named: "sample-\(index)")) }
        let sampler = MemorySampler()
        let source = driver.layout.memorySource
        guard source != .procfs else {
            print("sampling skipped: no memory controller")
            return
        }
        for group in groups { try sampler.track(group, source: source) }
        let current = measure(rounds: 50) { _ = sampler.sampleCurrent() }
        let statistics = measure(rounds: 10) { _ = sampler.sampleStatistics() }
        print("sample memory.current of \(count) groups: \(current.formatted) a sweep (goal < 5 ms)")
        print("sample full statistics (footprint) of \(count) groups: \(statistics.formatted) a sweep")
        for group in groups { sampler.untrack(group.name) }
        for group in groups { try await driver.remove(group) }
        groups = []
    }

    /// freeze → confirmed frozen, and thaw, for a group with one spinning process.
    private static func freezing(_ driver: any CgroupDriver, rounds: Int) async throws {
        let group = try await driver.createGroup(named: "freeze")
        let pid = try spawnSpinner()
        defer { reap(pid) }
        try await driver.attach(pid, to: group)
        var freezeTimes: [Duration] = []
        var thawTimes: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            freezeTimes.append(try await clock.measure { try await driver.freeze(group) })
            thawTimes.append(try await clock.measure { try await driver.thaw(group) })
        }
        print("freeze → frozen: \(Figures(freezeTimes).formatted)")
        print("thaw: \(Figures(thawTimes).formatted)")
        try await driver.kill(group)
        try await driver.remove(group)
    }

    /// kill → empty for a group of `processes` spinning processes.
    private static func killing(_ driver: any CgroupDriver, processes: Int, rounds: Int) async throws {
        let group = try await driver.createGroup(named: "kill")
        var times: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            var pids: [Int32] = []
            for _ in 0..<processes {
                let pid = try spawnSleeper()
                pids.append(pid)
                try await driver.attach(pid, to: group)
            }
            times.append(try await clock.measure { try await driver.kill(group) })
            for pid in pids { reap(pid) }
        }
        print("kill → empty, \(processes) processes: \(Figures(times).formatted)")
        try await driver.remove(group)
    }

    private static func measure(rounds: Int, _ body: () -> Void) -> Figures {
        let clock = ContinuousClock()
        body()
        return Figures((0..<rounds).map { _ in clock.measure(body) })
    }

    /// Starts `/bin/sh -c script` with no signal blocked and every signal at its default
    /// action, whatever the calling thread blocks (inherited masks kept SIGTERM from ending it).
    private static func spawn(_ script: String) throws -> Int32 {
        do {
            return try ShellSpawn.start(script)
        } catch {
            throw CgroupError(code: .io, message: "Could not start /bin/sh for a benchmark.", cause: "\(error)")
        }
    }

    private static func spawnSpinner() throws -> Int32 { try spawn("while :; do :; done") }
    private static func spawnSleeper() throws -> Int32 { try spawn("exec sleep 1000") }

    private static func reap(_ pid: Int32) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

/// Median and 90th percentile of a set of timings.
private struct Figures {
    var median: Duration
    var p90: Duration

    init(_ times: [Duration]) {
        let sorted = times.sorted()
        median = sorted[sorted.count / 2]
        p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    }

    var formatted: String { "median \(Self.format(median)), p90 \(Self.format(p90))" }

    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = Double(seconds) * 1_000_000 + Double(attoseconds) / 1_000_000_000_000
        if microseconds < 1000 { return "\((microseconds * 10).rounded() / 10) µs" }
        return "\((microseconds / 10).rounded() / 100) ms"
    }
}
