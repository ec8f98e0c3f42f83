import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// The daemon's memory killer on real apps in real groups.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonMemoryTests {
    /// Under critical pressure the largest suspended apps die first, one per pressure event,
    /// the foreground app lives, and the journal holds memoryPressure for each victim.
    @Test func criticalPressureKillsTheLargestSuspendedAppsFirstAndSparesTheForegroundApp() async throws {
        let sizes = ["small": 16, "large": 64, "medium": 40, "front": 8]
        var policy = "foreground_slots = 1\n"
        for (name, size) in sizes.sorted(by: { $0.key < $1.key }) {
            policy += """
                [apps.\(name)]
                command = "BALLAST"
                args = ["--hold", "\(size)"]
                [apps.\(name).background]
                grace = "1s"

                """
        }
        try await DaemonHarness.run(policy: policy, apps: Array(sizes.keys)) { harness in
            let daemon = try await harness.start()
            for name in ["small", "large", "medium", "front"] {
                _ = try await daemon.perform(.open(app: name))
                #expect(await eventually { await daemon.control.app(named: name)?.pids.isEmpty == false })
            }
            for name in ["small", "large", "medium"] {
                #expect(await eventually { await daemon.stateName(of: name) == "suspended" })
                let bytes = Int64(sizes[name]!) << 20
                #expect(await eventually { (await daemon.control.app(named: name)?.footprintBytes ?? 0) >= bytes })
            }
            var victims: [String] = []
            for _ in 0..<3 {
                _ = try await daemon.perform(.pressure(.critical))
                for name in ["small", "large", "medium"] where !victims.contains(name) {
                    if await daemon.stateName(of: name) == "notRunning" { victims.append(name) }
                }
            }
            #expect(victims == ["large", "medium", "small"])
            for name in ["small", "large", "medium"] {
                #expect(try await daemon.terminationReasons(of: name) == ["memoryPressure"])
                let (driver, group) = try harness.group(of: name)
                #expect(((try? await driver.processes(in: group)) ?? []).isEmpty, "app \(name) still has processes")
            }
            #expect(await daemon.stateName(of: "front") == "active")
            #expect(await daemon.control.app(named: "front")?.pids.isEmpty == false)
            await daemon.stop()
        }
    }

    /// A device made of a parent group with a memory limit: the foreground app grows until
    /// memory is critical for real, and the daemon's own samples kill the largest suspended
    /// apps first, one at a time, while the foreground app lives.
    @Test(.requiresV1Memory)
    func aGrowingForegroundAppUnderAParentLimitPushesOutTheLargestSuspendedAppsFirst() async throws {
        let policy = """
            foreground_slots = 1
            [memory]
            warning_enter = "96MiB"
            warning_exit = "112MiB"
            critical_enter = "64MiB"
            critical_exit = "80MiB"
            kill_foreground = false
            [apps.large]
            command = "BALLAST"
            args = ["--hold", "64"]
            [apps.large.background]
            grace = "1s"
            [apps.medium]
            command = "BALLAST"
            args = ["--hold", "40"]
            [apps.medium.background]
            grace = "1s"
            [apps.small]
            command = "BALLAST"
            args = ["--hold", "16"]
            [apps.small.background]
            grace = "1s"
            [apps.front]
            command = "BALLAST"
            args = ["--hold", "4", "--grow", "4", "--every", "100ms"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["large", "medium", "small", "front"]) { harness in
            let daemon = try await harness.start()
            for name in ["small", "large", "medium"] {
                _ = try await daemon.perform(.open(app: name))
                #expect(await eventually { await daemon.control.app(named: name)?.pids.isEmpty == false })
            }
            _ = try await daemon.perform(.home)
            for name in ["small", "large", "medium"] {
                #expect(await eventually { await daemon.stateName(of: name) == "suspended" })
            }
            // The device: whatever is in use now, plus room for the foreground app to grow 48 MiB
            // before less than the critical 64 MiB is left.
            let root = "/sys/fs/cgroup/memory/" + harness.options.cgroupRoot
            let usage =
                Int(
                    try String(contentsOfFile: root + "/memory.usage_in_bytes", encoding: .utf8)
                        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            try String(usage + (112 << 20)).write(
                toFile: root + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
            _ = try await daemon.perform(.open(app: "front"))
            var victims: [String] = []
            let finished = await eventually(within: .seconds(30)) {
                for name in ["small", "large", "medium"] where !victims.contains(name) {
                    if await daemon.stateName(of: name) == "notRunning" { victims.append(name) }
                }
                return victims.count == 3
            }
            #expect(finished)
            #expect(victims == ["large", "medium", "small"])
            #expect(await daemon.stateName(of: "front") == "active")
            for name in victims {
                #expect(try await daemon.terminationReasons(of: name) == ["memoryPressure"])
            }
            await daemon.stop()
        }
    }

    /// With the regular sweep an hour away, the memory watch alone (usage thresholds on the
    /// device's v1 group and polling near them) finds memory critical as the foreground app
    /// grows, and kills the largest suspended app for memory pressure before any charge hits
    /// the limit, while the foreground app lives.
    @Test(.requiresV1Memory)
    func theMemoryWatchKillsForMemoryWithoutWaitingForASweep() async throws {
        let policy = """
            foreground_slots = 1
            [memory]
            warning_enter = "96MiB"
            warning_exit = "112MiB"
            critical_enter = "64MiB"
            critical_exit = "80MiB"
            kill_foreground = false
            [apps.large]
            command = "BALLAST"
            args = ["--hold", "64"]
            [apps.large.background]
            grace = "1s"
            [apps.small]
            command = "BALLAST"
            args = ["--hold", "16"]
            [apps.small.background]
            grace = "1s"
            [apps.front]
            command = "BALLAST"
            args = ["--hold", "4", "--grow", "4", "--every", "100ms"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["large", "small", "front"]) { harness in
            try await Self.growPastCriticalWithoutSweeps(harness)
        }
    }

    /// Suspends "small" and "large", limits the device to what is in use plus 112 MiB, opens
    /// the growing "front" app and expects "large" killed for memory pressure while "front" lives.
    private static func growPastCriticalWithoutSweeps(_ harness: DaemonHarness) async throws {
        let daemon = try await harness.start(options: withoutSweeps(harness.options))
        for name in ["small", "large"] {
            _ = try await daemon.perform(.open(app: name))
            let started = await eventually { await daemon.control.app(named: name)?.pids.isEmpty == false }
            #expect(started)
        }
        _ = try await daemon.perform(.home)
        for name in ["small", "large"] {
            let suspended = await eventually { await daemon.stateName(of: name) == "suspended" }
            #expect(suspended)
        }
        let root = "/sys/fs/cgroup/memory/" + harness.options.cgroupRoot
        let text = try String(contentsOfFile: root + "/memory.usage_in_bytes", encoding: .utf8)
        let usage = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        try String(usage + (112 << 20)).write(
            toFile: root + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
        _ = try await daemon.perform(.open(app: "front"))
        let killed = await eventually(within: .seconds(30)) {
            await daemon.stateName(of: "large") == "notRunning"
        }
        // No charge has hit the limit yet: the kernel's own pressure notifications (which need
        // reclaim at the limit) cannot have been what found memory critical.
        let failures = try String(contentsOfFile: root + "/memory.failcnt", encoding: .utf8)
        #expect(killed)
        #expect(failures.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let reasons = try await daemon.terminationReasons(of: "large")
        #expect(reasons == ["memoryPressure"])
        let front = await daemon.stateName(of: "front")
        #expect(front == "active")
        await daemon.stop()
    }

    /// `options` with the regular memory sweep an hour away.
    private static func withoutSweeps(_ options: WardenDaemonOptions) -> WardenDaemonOptions {
        var changed = options
        changed.sampleInterval = .seconds(3600)
        return changed
    }
}
