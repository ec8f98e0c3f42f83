import Logging
import WardenCgroup
import WardenCore
import WardenPlatform

/// What the daemon logs when it starts and when it stops, so that an operator reading the log
/// sees where it put the apps, what it watches and what it left behind.
struct DaemonLifeLog {
    let logger: Logger
    let options: WardenDaemonOptions

    /// Logs the policy and its apps, the state directory, the cgroup layout and where the apps'
    /// groups are placed, and the apps re-adopted from a previous daemon, of those `running`.
    func started(
        policy: Policy, driver: (any CgroupDriver)?, adopted: [String], lifecycle: Lifecycle,
        running: [String: RunningProcess]
    ) {
        let names = policy.apps.map(\.name)
        logger.info(
            "Policy \(options.policyPath): \(names.count) apps (\(names.isEmpty ? "none" : names.joined(separator: ", ")))."
        )
        logger.info("State directory \(options.stateDirectory): journal, app logs and restoration directories.")
        for warning in PolicyWarnings.unreachableFolders(policy, stateDirectory: options.stateDirectory) {
            logger.warning("Policy \(options.policyPath): \(warning)")
        }
        if let driver {
            let layout = driver.layout
            let probe = driver.group(named: "probe")
            var places: [String] = []
            if let unified = probe.unifiedPath.map(PathText.directory) { places.append("cgroup2 \(unified)") }
            if let memory = probe.memoryPath.map(PathText.directory),
                memory != probe.unifiedPath.map(PathText.directory)
            {
                places.append("v1 memory \(memory)")
            }
            if let freezer = probe.freezerPath.map(PathText.directory),
                freezer != probe.unifiedPath.map(PathText.directory)
            {
                places.append("v1 freezer \(freezer)")
            }
            if let cpu = probe.cpuPath.map(PathText.directory) { places.append("v1 cpu \(cpu)") }
            let cpu: String =
                switch driver.cpuController {
                case .unified: "CPU classes through cgroup2 cpu.weight"
                case .v1: "CPU classes through v1 cpu.shares"
                case .unavailable: "no CPU controller, so every app shares the processors alike whatever its state"
                }
            let line =
                "Cgroup layout \(layout.kind.rawValue) (memory from \(layout.memorySource.rawValue), freezing through "
                + "\(layout.freezeSource.rawValue), \(cpu)); apps' groups under "
                + "\(places.isEmpty ? "no hierarchy" : places.joined(separator: ", "))\(options.dryRun ? " (dry run)" : "")."
            logger.info("\(line)")
            if layout.unifiedControllers.contains("io") {
                logger.info("\(IOWeightReach.read(unifiedMount: layout.unifiedMountPoint).sentence)")
            } else {
                logger.info(
                    "No I/O classes: the cgroup2 mount has no io controller, so every app shares the drives alike whatever its state."
                )
            }
        } else {
            logger.info("No cgroups: apps are neither frozen nor killed (dry run).")
        }
        if adopted.isEmpty {
            logger.info("Re-adopted no apps: none was left running by a previous daemon.")
        } else {
            logger.info(
                "Re-adopted \(adopted.count) apps left running: \(Self.describe(adopted, lifecycle, running)).")
        }
    }

    /// Logs the apps left running for the next start (those `running`), or that every app was
    /// stopped.
    func stopped(stoppedApps: Bool, lifecycle: Lifecycle, running: [String: RunningProcess]) {
        let names = running.keys.sorted()
        if stoppedApps {
            let list = names.isEmpty ? "." : ": \(names.joined(separator: ", "))."
            logger.info("Stopped; every app was stopped (--stop-apps-on-exit)\(list)")
        } else if names.isEmpty {
            logger.info("Stopped; no app was running.")
        } else {
            logger.info(
                "Stopped; left \(names.count) apps running for the next start to re-adopt: \(Self.describe(names, lifecycle, running))."
            )
        }
    }

    /// `mail (suspended, pid 412), maps (active, pid 415)`.
    private static func describe(_ apps: [String], _ lifecycle: Lifecycle, _ running: [String: RunningProcess])
        -> String
    {
        apps.sorted().map { app in
            let state = lifecycle.state(of: app)?.rawValue ?? "unknown"
            let pid = running[app].map { ", pid \($0.pid)" } ?? ""
            return "\(app) (\(state)\(pid))"
        }
        .joined(separator: ", ")
    }
}
