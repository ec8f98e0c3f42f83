import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("Pressure monitor")
struct PressureMonitorTests {
    /// Collects events until `enough` says so or `timeout` passes, then stops the monitor.
    private static func collect(
        _ monitor: PressureMonitor, timeout: Duration, until enough: @Sendable @escaping ([PressureEvent]) -> Bool
    ) async -> [PressureEvent] {
        await withTaskGroup(of: [PressureEvent]?.self) { group in
            group.addTask {
                var events: [PressureEvent] = []
                for await event in monitor {
                    events.append(event)
                    if enough(events) { break }
                }
                return events
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                monitor.stop()
                return nil
            }
            let events = await group.next()! ?? []
            group.cancelAll()
            monitor.stop()
            return events
        }
    }

    /// The attempts start at the window asked for and widen to 1 s, 2 s and the next multiple
    /// of 2 s, the stall keeping its share of the window.
    @Test func psiAttemptsWidenTheWindowWithTheStallScaled() {
        let attempts = PressureMonitor.psiAttempts(stall: .milliseconds(75), window: .milliseconds(500))
        #expect(attempts.map(\.window) == [.milliseconds(500), .seconds(1), .seconds(2)])
        #expect(attempts.map(\.stall) == [.milliseconds(75), .milliseconds(150), .milliseconds(300)])
        let odd = PressureMonitor.psiAttempts(stall: .milliseconds(300), window: .seconds(3))
        #expect(odd.map(\.window) == [.seconds(3), .seconds(4)])
        #expect(odd.map(\.stall) == [.milliseconds(300), .milliseconds(400)])
        #expect(PressureMonitor.psiAttempts(stall: .seconds(1), window: .seconds(4)).map(\.window) == [.seconds(4)])
    }

    /// A kernel that refuses windows under 2 s with EINVAL (as one without CAP_SYS_RESOURCE
    /// does) gets 500 ms, then 1 s, then accepts the 2 s trigger, written in microseconds.
    @Test func probeFallsBackToTheFirstWindowTheKernelAccepts() throws {
        var written: [String] = []
        let attempts = PressureMonitor.psiAttempts(stall: .milliseconds(75), window: .milliseconds(500))
        let outcome = PressureMonitor.probeTrigger(kind: .some, attempts: attempts) { trigger in
            written.append(trigger)
            return trigger.hasSuffix(" 2000000") ? .success(()) : .failure(.invalidArgument)
        }
        #expect(written == ["some 75000 500000", "some 150000 1000000", "some 300000 2000000"])
        #expect(try outcome.get().window == .seconds(2))
        #expect(try outcome.get().stall == .milliseconds(300))
    }

    /// Only EINVAL moves on: a refusal for another reason ends the probe at once with that error,
    /// and a kernel that refuses every window is an error naming the file and the windows tried.
    @Test func probeStopsAtOtherErrorsAndReportsEveryWindowRefused() {
        let attempts = PressureMonitor.psiAttempts(stall: .milliseconds(75), window: .milliseconds(500))
        var tries = 0
        let denied = PressureMonitor.probeTrigger(kind: .full, attempts: attempts) { _ in
            tries += 1
            return .failure(.notPermitted)
        }
        #expect(tries == 1)
        #expect(throws: Errno.notPermitted) { try denied.get() }
        let refused = PressureMonitor.probeTrigger(kind: .some, attempts: attempts) { _ in .failure(.invalidArgument) }
        #expect(throws: Errno.invalidArgument) { try refused.get() }
        let error = PressureMonitor.psiRefusal(
            .invalidArgument, path: "/proc/pressure/memory", kind: .some, attempts: attempts)
        #expect(error.message.contains("\"some 75000 500000\" on \"/proc/pressure/memory\""))
        #expect(error.message.contains("(500 ms, 1000 ms, 2000 ms)"))
    }

    /// A trigger on the whole device's `/proc/pressure/memory` is armed with the shortest
    /// window this kernel accepts, at most 2 s, the stall at the same share of it.
    @Test(
        .enabled(
            if: access("/proc/pressure/memory", W_OK) == 0, "needs a kernel with PSI and a writable /proc/pressure"))
    func devicePressureTriggerIsArmedWithTheShortestAcceptedWindow() throws {
        let monitor = try PressureMonitor.start([
            .psi(path: "/proc/pressure/memory", stall: .milliseconds(75), window: .milliseconds(500))
        ])
        defer { monitor.stop() }
        guard case .psi("/proc/pressure/memory", .some, let stall, let window, .medium)? = monitor.armed.first else {
            Issue.record("armed: \(monitor.armed)")
            return
        }
        #expect([Duration.milliseconds(500), .seconds(1), .seconds(2)].contains(window))
        #expect(stall * 1000 == window * 150)
    }

    /// A process that outgrows a 32 MiB v1 limit raises a pressure-level or OOM notification for its group.
    @Test(.requiresRootCgroups, .requiresV1Memory, .requiresBallast)
    func outgrowingASmallV1LimitRaisesAnEvent() async throws {
        let logs = ScratchDirectory("pressure-v1")
        defer { logs.remove() }
        try await ScratchGroup.with("pressure", memoryLimitBytes: 32 << 20) { group in
            let memoryPath = group.memoryPath!
            let monitor = try PressureMonitor.start([
                .pressureLevel(group: memoryPath, level: .low),
                .oomControl(group: memoryPath),
                .psi(path: group.unifiedPath! + "/memory.pressure", stall: .milliseconds(50), window: .seconds(1)),
            ])
            let child = ChildGuard(
                try ProcessSpawner().spawn(
                    SpawnRequest(
                        executable: TestHost.ballastPath!,
                        arguments: ["--hold", "8", "--touch-at-start", "--grow", "4", "--every", "20ms"],
                        standardOutputPath: logs.file("out.log"),
                        group: group.appGroup
                    )
                )
            )
            let events = await Self.collect(monitor, timeout: .seconds(20)) { events in
                events.contains { $0.source == .oomControl(group: memoryPath) }
            }
            let fromV1 = events.filter {
                $0.source == .pressureLevel(group: memoryPath) || $0.source == .oomControl(group: memoryPath)
            }
            #expect(!fromV1.isEmpty, "events seen: \(events)")
            #expect(events.contains { $0.source == .oomControl(group: memoryPath) && $0.level == .critical })
            #expect(try child.process.waitForExit(timeout: .seconds(10)))
            #expect(try child.waitAndReap() == .signaled(SIGKILL))
        }
    }

    /// v1 usage thresholds fire as a real group's usage rises past each mark, lowest mark
    /// first, while the process is still running, and fire again when usage falls back below
    /// them; nothing here samples, so every event comes from the kernel.
    @Test(.requiresRootCgroups, .requiresV1Memory, .requiresBallast)
    func usageThresholdsFireOnEachCrossingBothWays() async throws {
        let logs = ScratchDirectory("pressure-threshold")
        defer { logs.remove() }
        try await ScratchGroup.with("threshold", memoryLimitBytes: 256 << 20) { group in
            let memoryPath = group.memoryPath!
            let low: UInt64 = 24 << 20
            let high: UInt64 = 48 << 20
            let monitor = try PressureMonitor.start([
                .usageThreshold(group: memoryPath, bytes: low), .usageThreshold(group: memoryPath, bytes: high),
            ])
            #expect(monitor.armed.count == 2)
            let child = ChildGuard(
                try ProcessSpawner().spawn(
                    SpawnRequest(
                        executable: TestHost.ballastPath!,
                        arguments: ["--hold", "4", "--touch-at-start", "--grow", "4", "--every", "50ms"],
                        standardOutputPath: logs.file("out.log"),
                        group: group.appGroup
                    )
                )
            )
            let pid = child.process.pid
            let events = await withTaskGroup(of: [PressureEvent].self) { tasks in
                tasks.addTask {
                    var events: [PressureEvent] = []
                    var killed = false
                    for await event in monitor {
                        events.append(event)
                        if !killed && event.source == .usageThreshold(group: memoryPath, bytes: high) {
                            // Past the upper mark: the grower is still alive, so end it and
                            // watch usage fall back below both marks.
                            killed = kill(pid, SIGKILL) == 0
                        }
                        if killed && events.count >= 4 { break }
                    }
                    return events
                }
                tasks.addTask {
                    try? await Task.sleep(for: .seconds(30))
                    monitor.stop()
                    return []
                }
                let events = await tasks.next() ?? []
                tasks.cancelAll()
                monitor.stop()
                return events
            }
            let lowCrossing = PressureEvent.Source.usageThreshold(group: memoryPath, bytes: low)
            let highCrossing = PressureEvent.Source.usageThreshold(group: memoryPath, bytes: high)
            let sources = events.map(\.source)
            #expect(sources.count == 4, "events seen: \(events)")
            // Rising: the lower mark first. Falling at once to nothing: both marks, in either order.
            #expect(Array(sources.prefix(2)) == [lowCrossing, highCrossing], "events seen: \(events)")
            #expect(Set(sources.dropFirst(2)) == [lowCrossing, highCrossing], "events seen: \(events)")
            #expect(try child.waitAndReap() == .signaled(SIGKILL))
        }
    }

    /// Pressure-level notifications are debounced: never two from one source within the debounce time,
    /// although page-cache reclaim under a 32 MiB limit raises them far more often.
    @Test(.requiresRootCgroups, .requiresV1Memory, .requiresBallast)
    func pressureLevelNotificationsAreDebounced() async throws {
        let scratch = ScratchDirectory("pressure-debounce")
        defer { scratch.remove() }
        try await ScratchGroup.with("debounce", memoryLimitBytes: 32 << 20) { group in
            let memoryPath = group.memoryPath!
            let debounce = Duration.milliseconds(200)
            let monitor = try PressureMonitor.start(
                [.pressureLevel(group: memoryPath, level: .low)], debounce: debounce)
            let script = "for i in 1 2 3 4 5 6 7 8 9 10; do dd if=/dev/zero of=\"$1\" bs=1M count=128 2>/dev/null; done"
            let writer = ChildGuard(
                try ProcessSpawner().spawn(
                    SpawnRequest(
                        executable: "/bin/sh",
                        arguments: ["-c", script, "sh", scratch.file("cache-filler")],
                        group: group.appGroup
                    )
                )
            )
            let events = await Self.collect(monitor, timeout: .seconds(10)) { $0.count >= 3 }
            try writer.process.send(signal: SIGKILL)
            #expect(events.count >= 2, "events seen: \(events)")
            for (earlier, later) in zip(events, events.dropFirst()) {
                #expect(later.time - earlier.time >= debounce)
            }
        }
    }

    /// Page-cache thrashing under a 32 MiB v1 limit fires a PSI trigger on the app's cgroup2 leaf.
    @Test(.requiresRootCgroups, .requiresV1Memory, .requiresBallast)
    func thrashingUnderAV1LimitFiresThePSITriggerOfTheLeaf() async throws {
        let scratch = ScratchDirectory("pressure-psi")
        defer { scratch.remove() }
        try await ScratchGroup.with("psi-fire", memoryLimitBytes: 32 << 20) { group in
            let path = group.unifiedPath! + "/memory.pressure"
            let monitor = try PressureMonitor.start([.psi(path: path, stall: .milliseconds(20), window: .seconds(1))])
            let script = "while :; do dd if=/dev/zero of=\"$1\" bs=1M count=128 conv=fsync 2>/dev/null; done"
            let writer = ChildGuard(
                try ProcessSpawner().spawn(
                    SpawnRequest(
                        executable: "/bin/sh",
                        arguments: ["-c", script, "sh", scratch.file("cache-filler")],
                        group: group.appGroup
                    )
                )
            )
            let events = await Self.collect(monitor, timeout: .seconds(15)) { !$0.isEmpty }
            try writer.process.send(signal: SIGKILL)
            #expect(events.first?.source == .psi(path: path))
            #expect(events.first?.level == .medium)
        }
    }

    /// A PSI trigger on a cgroup2 leaf is armed, with the window widened to 2 s where the kernel
    /// refuses 1 s, and the stall scaled alike.
    @Test(.requiresRootCgroups, .requiresUnifiedPressureFiles)
    func psiTriggerIsArmedWithAnAcceptedWindow() async throws {
        try await ScratchGroup.with("psi", memory: false) { group in
            let path = group.unifiedPath! + "/memory.pressure"
            let monitor = try PressureMonitor.start([.psi(path: path, stall: .milliseconds(150), window: .seconds(1))])
            defer { monitor.stop() }
            guard case .psi(let armedPath, .some, let stall, let window, .medium)? = monitor.armed.first else {
                Issue.record("armed: \(monitor.armed)")
                return
            }
            #expect(armedPath == path)
            #expect(window == .seconds(1) || window == .seconds(2))
            #expect(stall * 1_000_000 == window * 150_000)
        }
    }

    /// A source that cannot be armed is an error naming its file, and nothing is left open.
    @Test func missingGroupIsReportedByPath() {
        let error = #expect(throws: CgroupError.self) {
            try PressureMonitor.start([.pressureLevel(group: "/nonexistent/appwarden-group")])
        }
        #expect(error?.message.contains("/nonexistent/appwarden-group/memory.pressure_level") == true)
    }

    /// Cancelling the consuming task ends the sequence.
    @Test func cancellingTheConsumerEndsTheSequence() async throws {
        let monitor = try PressureMonitor.start([])
        let consumer = Task {
            var count = 0
            for await _ in monitor { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        let count = await consumer.value
        #expect(count == 0)
    }
}
