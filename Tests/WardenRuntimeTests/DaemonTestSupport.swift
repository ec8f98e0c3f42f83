import Foundation
import Logging
import Synchronization
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A daemon on a temporary state directory and its own cgroup root, with everything it
/// creates removed afterwards, whether the test passed or not.
struct DaemonHarness: Sendable {
    let directory: String
    let options: WardenDaemonOptions
    let appNames: [String]
    /// Every daemon `start` made, stopped by `cleanUp` even when the test did not get to it.
    private let started = StartedDaemons()

    /// Writes `policy` (with `BALLAST` replaced by the ballast path and `DIR` by the temporary
    /// directory) and prepares options for a daemon on it.
    init(policy: String, apps: [String]) throws {
        let directory = NSTemporaryDirectory() + "appwarden-daemon-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = policy.replacingOccurrences(of: "BALLAST", with: TestHost.ballastPath ?? "ballast")
            .replacingOccurrences(of: "DIR", with: directory)
        try text.write(toFile: directory + "/policy.toml", atomically: true, encoding: .utf8)
        self.directory = directory
        self.appNames = apps
        self.options = WardenDaemonOptions(
            policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
            stateDirectory: directory + "/state", cgroupRoot: TestCgroupName.unique(),
            sampleInterval: .milliseconds(200), lockDirectory: directory + "/run")
    }

    /// Starts a daemon on the harness's state directory and cgroup root.
    func start(dryRun: Bool = false, stopAppsOnExit: Bool = false) async throws -> WardenDaemon {
        try await start(options: options, dryRun: dryRun, stopAppsOnExit: stopAppsOnExit)
    }

    /// Starts a daemon on `options` (the harness's, with some changed), stopped by `cleanUp`.
    func start(
        options: WardenDaemonOptions, dryRun: Bool = false, stopAppsOnExit: Bool = false
    ) async throws -> WardenDaemon {
        var options = options
        options.dryRun = dryRun
        options.stopAppsOnExit = stopAppsOnExit
        var logger = Logger(label: "appwarden.test")
        logger.logLevel = .warning
        let daemon = try await WardenDaemon.start(options: options, logger: logger)
        started.add(daemon)
        return daemon
    }

    /// Runs `body`, then kills and removes every group and process of the cgroup root and the
    /// temporary directory, even when `body` throws.
    static func run(
        policy: String, apps: [String], _ body: (DaemonHarness) async throws -> Void
    ) async throws {
        let harness = try DaemonHarness(policy: policy, apps: apps)
        do {
            try await body(harness)
        } catch {
            await harness.cleanUp()
            throw error
        }
        await harness.cleanUp()
    }

    func cleanUp() async {
        for daemon in started.all() { await daemon.stop() }
        if let layout = try? CgroupLayout.read(),
            let driver = try? CgroupDrivers.make(
                layout: layout, configuration: CgroupConfiguration(rootName: options.cgroupRoot))
        {
            // The apps named by the test, and any other group found under the root.
            var names = Set(appNames)
            for path in driver.group(named: "probe").allPaths {
                let root = (path as NSString).deletingLastPathComponent
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: root + "/" + entry, isDirectory: &isDirectory),
                        isDirectory.boolValue
                    {
                        names.insert(entry)
                    }
                }
            }
            for app in names.sorted() {
                let group = driver.group(named: app)
                try? await driver.kill(group)
                try? await driver.remove(group)
            }
            try? await driver.removeRoot()
        }
        var status: Int32 = 0
        while waitpid(-1, &status, WNOHANG) > 0 {}
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The daemon's driver view of `app`'s group.
    func group(of app: String) throws -> (any CgroupDriver, AppGroup) {
        let driver = try CgroupDrivers.make(
            layout: try CgroupLayout.read(), configuration: CgroupConfiguration(rootName: options.cgroupRoot))
        return (driver, driver.group(named: app))
    }
}

extension WardenDaemon {
    /// The app's state name, or "missing".
    func stateName(of app: String) async -> String {
        await control.app(named: app)?.state.rawValue ?? "missing"
    }

    /// The `$AppTerminated` reasons journaled for `app`, oldest first.
    func terminationReasons(of app: String) async throws -> [String] {
        try await control.journal(JournalQuery(app: app, limit: 10_000)).filter { $0.name == "$AppTerminated" }
            .compactMap { $0.properties["reason"] }
    }
}

/// The daemons a harness started.
final class StartedDaemons: Sendable {
    private let daemons = Mutex<[WardenDaemon]>([])

    func add(_ daemon: WardenDaemon) {
        daemons.withLock { $0.append(daemon) }
    }

    func all() -> [WardenDaemon] {
        daemons.withLock { $0 }
    }
}
