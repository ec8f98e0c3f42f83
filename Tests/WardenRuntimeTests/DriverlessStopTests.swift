import Foundation
import Logging
import Testing
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A daemon without cgroups (a dry run without root) asked to stop its apps when it stops
/// kills their processes, as its journal says it did; without the option it leaves them
/// running. The fake launcher records the signals, on a manual clock.
struct DriverlessStopTests {
    static let policy = """
        [apps.mail]
        command = "/bin/mail"
        [apps.maps]
        command = "/bin/maps"
        """

    /// Stops a daemon that has no cgroup driver after opening both apps; returns the signals
    /// its launcher was asked to send and the pids of the apps.
    static func stop(stoppingApps: Bool) async throws -> (signals: [(pid: Int32, signal: Int32)], pids: [Int32]) {
        let directory = NSTemporaryDirectory() + "appwarden-driverless-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fake = FakeCgroupDriver()
        let launcher = FakeProcessLauncher(driver: nil)
        var options = WardenDaemonOptions(
            policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
            stateDirectory: directory, cgroupRoot: "appwarden-virtual", sampleInterval: .seconds(1_000_000_000))
        options.dryRun = true
        options.stopAppsOnExit = stoppingApps
        var logger = Logger(label: "appwarden.test")
        logger.logLevel = .critical
        let parts = DaemonParts(
            clock: WardenClock.virtual(ManualClock()), alarm: VirtualAlarm(), journal: WardenMemoryJournal(),
            driver: nil, launcher: launcher, memory: fake, signals: fake, logger: logger)
        let daemon = WardenDaemon(
            options: options, policy: try PolicyLoader.parse(Self.policy, file: "policy.toml"), parts: parts)
        await daemon.startRunning()
        _ = try await daemon.perform(.open(app: "mail"))
        _ = try await daemon.perform(.open(app: "maps"))
        let pids = ["mail", "maps"].compactMap(launcher.pid(of:))
        #expect(pids.count == 2)
        await daemon.stop()
        return (launcher.signals, pids)
    }

    /// With `--stop-apps-on-exit`, every app's process gets SIGKILL at the stop.
    @Test func appsAreKilledAtTheStopWhenAsked() async throws {
        let (signals, pids) = try await Self.stop(stoppingApps: true)
        let killed = Set(signals.filter { $0.signal == SIGKILL }.map(\.pid))
        #expect(killed == Set(pids))
    }

    /// Without it, the apps are left running for the next daemon: no signal at the stop.
    @Test func appsAreLeftRunningOtherwise() async throws {
        let (signals, _) = try await Self.stop(stoppingApps: false)
        #expect(signals.filter { $0.signal == SIGKILL }.isEmpty)
    }
}
