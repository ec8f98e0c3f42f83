import Foundation
import Synchronization
import Testing
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Writing `change` here makes the kernel send a `change` event of the loopback interface.
private let ueventTrigger = "/sys/class/net/lo/uevent"

/// Rule 14 on the host: a real device event, from the kernel's uevent socket, wakes the app whose
/// accessories match it, and no other.
@Suite(
    .serialized,
    .requiresRootCgroups,
    .enabled(
        if: access(ueventTrigger, W_OK) == 0,
        "Needs a writable /sys/class/net/lo/uevent to make the kernel send a device event.")
)
struct DaemonAccessoryTests {
    static let trigger = ueventTrigger

    /// The kernel source hears a `change` of the loopback interface with its properties.
    @Test func theKernelSourceHearsADeviceEvent() async throws {
        let source = KernelDeviceEvents()
        let heard = Heard()
        #expect(source.start { action, properties in heard.add(action, properties) } == nil)
        defer { source.stop() }
        try "change".write(toFile: Self.trigger, atomically: false, encoding: .utf8)
        #expect(await eventually { heard.contains(action: "change", interface: "lo") })
    }

    /// A `change` of the loopback interface launches the app that declares net devices passively,
    /// with reason `accessory`, and the event on its stream; the app that declares block devices
    /// stays stopped.
    @Test func aRealDeviceEventWakesOnlyTheMatchingApp() async throws {
        let script = "echo \"$APPWARDEN_LAUNCH_REASON\" > DIR/reason; exec sleep 60"
        let policy = """
            [apps.netwatch]
            command = "/bin/bash"
            args = ["-c", '''\(script)''']
            accessories = [{ subsystem = "net" }]
            [apps.diskwatch]
            command = "/bin/sleep"
            args = ["60"]
            accessories = [{ subsystem = "block", tag = "never-set" }]
            """
        try await DaemonHarness.run(policy: policy, apps: ["netwatch", "diskwatch"]) { harness in
            let daemon = try await harness.start()
            let dir = harness.directory
            try "change".write(toFile: Self.trigger, atomically: false, encoding: .utf8)
            #expect(await eventually { FileManager.default.fileExists(atPath: dir + "/reason") })
            let reason = try String(contentsOfFile: dir + "/reason", encoding: .utf8)
            #expect(reason.trimmingCharacters(in: .whitespacesAndNewlines) == "accessory")
            #expect(await daemon.stateName(of: "netwatch") == "background")
            #expect(await daemon.stateName(of: "diskwatch") == "notRunning")
            _ = try await daemon.perform(.completeAccessory(app: "netwatch"))
            #expect(await eventually { await daemon.stateName(of: "netwatch") == "suspended" })
            await daemon.stop()
        }
    }
}

/// The events a source handed over, from its thread.
private final class Heard: Sendable {
    private let events = Mutex<[(String, [String: String])]>([])

    func add(_ action: String, _ properties: [String: String]) {
        events.withLock { $0.append((action, properties)) }
    }

    func contains(action: String, interface: String) -> Bool {
        events.withLock { events in
            events.contains { $0.0 == action && $0.1["INTERFACE"] == interface && $0.1["SUBSYSTEM"] == "net" }
        }
    }
}
