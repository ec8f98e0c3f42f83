import CWardenSpawn
import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Spawn into a group against plain `posix_spawn`, and v1 pressure event → userspace.
extension CgroupBenchmarks {
    /// Starts `/bin/true` `rounds` times with `ProcessSpawner` into a group and with plain
    /// `posix_spawn` (and with `ProcessSpawner` outside any group), timing until the call returns a pid and until the exit is reaped.
    static func spawning(_ driver: any CgroupDriver, rounds: Int) async throws {
        let group = try await driver.createGroup(named: "spawn")
        defer { for path in group.allPaths { _ = rmdir(path) } }
        let spawner = ProcessSpawner()
        let request = SpawnRequest(executable: "/bin/true", group: group)
        let clock = ContinuousClock()
        var groupStart: [Duration] = []
        var groupReaped: [Duration] = []
        var bareStart: [Duration] = []
        var bareReaped: [Duration] = []
        let bareRequest = SpawnRequest(executable: "/bin/true")
        var plainStart: [Duration] = []
        var plainReaped: [Duration] = []
        var method = "?"
        for _ in 0..<rounds {
            let begin = clock.now
            let process = try spawner.spawn(request)
            let started = clock.now
            defer { process.close() }
            _ = try process.waitAndReap()
            groupStart.append(started - begin)
            groupReaped.append(clock.now - begin)
            method = "\(process.method)"

            let bareBegin = clock.now
            let bare = try spawner.spawn(bareRequest)
            let bareStarted = clock.now
            defer { bare.close() }
            _ = try bare.waitAndReap()
            bareStart.append(bareStarted - bareBegin)
            bareReaped.append(clock.now - bareBegin)

            let plainBegin = clock.now
            let pid = try posixSpawnTrue()
            let plainStarted = clock.now
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            plainStart.append(plainStarted - plainBegin)
            plainReaped.append(clock.now - plainBegin)
        }
        print("spawn /bin/true into a group (\(method), \(group.v1ProcsFiles.count) v1 joins), \(rounds) runs:")
        print("  call → pid: \(Percentiles(groupStart).formatted) (goal < 2 ms)")
        print("  call → exit reaped: \(Percentiles(groupReaped).formatted)")
        print("ProcessSpawner /bin/true without a group, \(rounds) runs:")
        print("  call → pid: \(Percentiles(bareStart).formatted)")
        print("  call → exit reaped: \(Percentiles(bareReaped).formatted)")
        print("plain posix_spawn /bin/true, \(rounds) runs:")
        print("  call → pid: \(Percentiles(plainStart).formatted)")
        print("  call → exit reaped: \(Percentiles(plainReaped).formatted)")
        try await driver.remove(group)
    }

    /// v1 `memory.pressure_level` (level "low") of a group with a 16 MiB limit, while a child
    /// started inside it touches a 64 MiB buffer (`dd bs=64M`).
    ///
    /// One loop polls, without blocking, the eventfd and `memory.failcnt` (which the kernel
    /// raises each time a charge hits the limit, the moment reclaim starts). The figure is from
    /// the loop first seeing `memory.failcnt` above zero to the loop reading the eventfd.
    static func pressureEvents(_ driver: any CgroupDriver, rounds: Int) async throws {
        guard driver.layout.memorySource == .v1 else {
            print("pressure event benchmark skipped: no v1 memory controller")
            return
        }
        let clock = ContinuousClock()
        var latencies: [Duration] = []
        var misses = 0
        for round in 0..<rounds {
            let group = try await driver.createGroup(named: "pressure-\(round)")
            var processes: [SpawnedProcess] = []
            var fds: [Int32] = []
            defer {
                for process in processes {
                    try? process.send(signal: SIGKILL)
                    _ = try? process.waitAndReap()
                    process.close()
                }
                for fd in fds { close(fd) }
                for path in group.allPaths { _ = rmdir(path) }
            }
            guard let memory = group.memoryPath else {
                print("pressure event benchmark skipped: the group has no v1 memory directory")
                return
            }
            try writeFile(memory + "/memory.limit_in_bytes", "\(16 << 20)")
            let eventFD = warden_eventfd()
            guard eventFD >= 0 else { throw failure("eventfd", errno) }
            fds.append(eventFD)
            let levelFD = open(memory + "/memory.pressure_level", O_RDONLY | O_CLOEXEC)
            guard levelFD >= 0 else { throw failure("open memory.pressure_level", errno) }
            fds.append(levelFD)
            let failcntFD = open(memory + "/memory.failcnt", O_RDONLY | O_CLOEXEC)
            guard failcntFD >= 0 else { throw failure("open memory.failcnt", errno) }
            fds.append(failcntFD)
            try writeFile(memory + "/cgroup.event_control", "\(eventFD) \(levelFD) low")

            let process = try ProcessSpawner().spawn(
                SpawnRequest(
                    executable: "/bin/dd", arguments: ["if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"],
                    group: group))
            processes.append(process)
            let deadline = clock.now + .seconds(5)
            var crossed: ContinuousClock.Instant?
            var buffer = [UInt8](repeating: 0, count: 32)
            var counter: UInt64 = 0
            var paired = false
            while clock.now < deadline {
                if crossed == nil {
                    let count = pread(failcntFD, &buffer, buffer.count, 0)
                    if count > 0, buffer[0] != UInt8(ascii: "0") { crossed = clock.now }
                }
                if read(eventFD, &counter, 8) == 8 {
                    let seen = clock.now
                    if let crossed {
                        latencies.append(seen - crossed)
                        paired = true
                    }
                    break
                }
            }
            if !paired { misses += 1 }
        }
        guard !latencies.isEmpty else {
            print("pressure event → userspace: no event in \(rounds) rounds")
            return
        }
        print(
            "v1 pressure_level event → userspace (from memory.failcnt > 0 seen to eventfd read), "
                + "\(latencies.count) of \(rounds) rounds: \(Percentiles(latencies).formatted)"
                + (misses > 0 ? "; \(misses) rounds without a usable pair" : ""))
    }

    private static func posixSpawnTrue() throws -> Int32 {
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for pointer in argv { free(pointer) } }
        let result = posix_spawn(&pid, "/bin/true", nil, nil, &argv, environ)
        guard result == 0 else { throw failure("posix_spawn /bin/true", result) }
        return pid
    }

    private static func writeFile(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open \(path)", errno) }
        defer { close(fd) }
        let written = text.withCString { write(fd, $0, strlen($0)) }
        guard written >= 0 else { throw failure("write \"\(text)\" to \(path)", errno) }
    }

    private static func failure(_ action: String, _ code: Int32) -> CgroupError {
        CgroupError(code: .io, message: "Could not \(action) for a benchmark.", cause: "errno \(code)")
    }
}

/// Median, 90th and 99th percentile of a set of timings.
private struct Percentiles {
    var median: Duration
    var p90: Duration
    var p99: Duration

    init(_ times: [Duration]) {
        let sorted = times.sorted()
        median = sorted[sorted.count / 2]
        p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
    }

    var formatted: String {
        "median \(Self.format(median)), p90 \(Self.format(p90)), p99 \(Self.format(p99))"
    }

    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = Double(seconds) * 1_000_000 + Double(attoseconds) / 1_000_000_000_000
        if microseconds < 1000 { return "\((microseconds * 10).rounded() / 10) µs" }
        return "\((microseconds / 10).rounded() / 100) ms"
    }
}
