import Foundation
import Logging
import WardenCgroup
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension DaemonBenchmarks {
    /// A benchmark that could not go on, in a sentence.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// The files of a memory group that models a device.
    struct Device: Sendable {
        var usageFile: String
        var limitFile: String
        /// The v1 `memory.oom_control`, or the cgroup2 `memory.events`, which count OOM kills.
        var eventsFile: String
        /// Where a process is moved into the group.
        var procsFile: String

        /// How many processes the kernel's OOM killer has killed in the group and the groups
        /// right under it (the count is kept where the victim was).
        func oomKills() -> Int? {
            let folder = DaemonBenchmarks.parent(eventsFile)
            let name = String(eventsFile.dropFirst(folder.count + 1))
            var files = [eventsFile]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: folder + "/" + entry, isDirectory: &isFolder),
                    isFolder.boolValue
                {
                    files.append(folder + "/" + entry + "/" + name)
                }
            }
            var total: Int?
            for file in files {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
                for line in text.split(separator: "\n") {
                    let fields = line.split(separator: " ")
                    if fields.count == 2, fields[0] == "oom_kill", let count = Int(fields[1]) {
                        total = (total ?? 0) + count
                    }
                }
            }
            return total
        }
    }

    /// A temporary directory with a policy, and a cgroup root of its own; `run` removes both,
    /// with every process in the groups, whether the benchmark succeeds or not.
    struct Workspace: Sendable {
        let directory: String
        let options: WardenDaemonOptions
        let apps: [String]

        static let quietLogger: Logger = {
            var logger = Logger(label: "appwarden.benchmark")
            logger.logLevel = .error
            return logger
        }()

        /// Writes `policy` (with `BALLAST` replaced by the ballast path), runs `body`, cleans up.
        static func run(
            policy: String, apps: [String], ballast: String, _ body: (Workspace) async throws -> Void
        ) async throws {
            let directory = NSTemporaryDirectory() + "appwarden-bench-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let workspace = Workspace(
                directory: directory,
                options: WardenDaemonOptions(
                    policyPath: directory + "/policy.toml", socketPath: directory + "/appwarden.sock",
                    stateDirectory: directory + "/state", cgroupRoot: "appwarden-bench-\(getpid())-\(counter.next())",
                    stopAppsOnExit: true),
                apps: apps)
            do {
                try policy.replacingOccurrences(of: "BALLAST", with: ballast)
                    .write(toFile: workspace.options.policyPath, atomically: true, encoding: .utf8)
                try await body(workspace)
            } catch {
                await workspace.cleanUp()
                throw error
            }
            await workspace.cleanUp()
        }

        /// Starts a daemon on the workspace, with its default one-second sampling.
        func startDaemon() async throws -> WardenDaemon {
            try await WardenDaemon.start(options: options, logger: Self.quietLogger)
        }

        /// A cgroup driver for the workspace's root, apart from the daemon's.
        func driver() throws -> any CgroupDriver {
            try CgroupDrivers.make(
                layout: try CgroupLayout.read(), configuration: CgroupConfiguration(rootName: options.cgroupRoot))
        }

        /// Gives the daemon's root group (already prepared) a memory limit of `bytes`.
        func limitDevice(to bytes: Int64) throws -> Device {
            let driver = try driver()
            let device = try Self.device(driver, group: driver.group(named: "probe"))
            try String(bytes).write(toFile: device.limitFile, atomically: false, encoding: .utf8)
            return device
        }

        /// Prepares the root group with a memory limit of `bytes` and one group "apps" under it,
        /// without a daemon; processes go into "apps".
        func plainDevice(limit bytes: Int64) async throws -> Device {
            let driver = try driver()
            try await driver.prepare()
            let group = try await driver.createGroup(named: "apps")
            var device = try Self.device(driver, group: group)
            try String(bytes).write(toFile: device.limitFile, atomically: false, encoding: .utf8)
            let memoryPath = driver.layout.memorySource == .v1 ? group.memoryPath : group.unifiedPath
            device.procsFile = (memoryPath ?? "") + "/cgroup.procs"
            return device
        }

        /// The memory files of the parent of `group` (the root group).
        private static func device(_ driver: any CgroupDriver, group: AppGroup) throws -> Device {
            switch driver.layout.memorySource {
            case .v1:
                guard let path = group.memoryPath.map(DaemonBenchmarks.parent) else { break }
                return Device(
                    usageFile: path + "/memory.usage_in_bytes", limitFile: path + "/memory.limit_in_bytes",
                    eventsFile: path + "/memory.oom_control", procsFile: path + "/cgroup.procs")
            case .unified:
                guard let path = group.unifiedPath.map(DaemonBenchmarks.parent) else { break }
                return Device(
                    usageFile: path + "/memory.current", limitFile: path + "/memory.max",
                    eventsFile: path + "/memory.events", procsFile: path + "/cgroup.procs")
            case .procfs:
                break
            }
            throw Failure("The host has no memory controller to model a device with.")
        }

        /// Kills and removes every group of the root, the root and the temporary directory.
        func cleanUp() async {
            if let driver = try? driver() {
                for app in apps + ["probe"] {
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

        private static let counter = Counter()
    }

    /// The folder that holds `path`.
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Numbers for unique cgroup roots.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0

        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }
}
