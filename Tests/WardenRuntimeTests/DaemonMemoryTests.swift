import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime

/// The daemon's memory killer on real apps in real groups.
@Suite(.serialized, .enabled(if: DaemonTestHost.isReady, "needs root, a cgroup2 mount and the ballast executable"))
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
                #expect(await eventually { await daemon.app(named: name)?.pids.isEmpty == false })
            }
            for name in ["small", "large", "medium"] {
                #expect(await eventually { await daemon.stateName(of: name) == "suspended" })
                let bytes = Int64(sizes[name]!) << 20
                #expect(await eventually { (await daemon.app(named: name)?.footprintBytes ?? 0) >= bytes })
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
            #expect(await daemon.app(named: "front")?.pids.isEmpty == false)
            await daemon.stop()
        }
    }
}
