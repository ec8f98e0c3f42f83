import Testing
import WardenCgroup
import WardenTesting

@testable import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's PSI trigger on the whole device's memory, on the real host.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresBallast, .requiresDevicePressureTrigger)
struct DaemonDevicePressureTests {
    /// A daemon arms a PSI trigger on `/proc/pressure/memory` with the shortest window the
    /// kernel accepts (at most 2 s) and removes it when it stops.
    @Test func theDaemonWatchesTheWholeDevicesPressureUntilItStops() async throws {
        let policy = """
            [apps.idle]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["idle"]) { harness in
            let daemon = try await harness.start()
            let signals = try #require(daemon.parts.signals as? KernelMemorySignals)
            guard case .psi(let path, .some, let stall, let window, .medium)? = signals.armedDeviceSources.first
            else {
                Issue.record("armed: \(signals.armedDeviceSources)")
                return
            }
            #expect(path == "/proc/pressure/memory")
            #expect([Duration.milliseconds(500), .seconds(1), .seconds(2)].contains(window))
            #expect(stall < window)
            await daemon.stop()
            #expect(signals.armedDeviceSources.isEmpty)
        }
    }
}
