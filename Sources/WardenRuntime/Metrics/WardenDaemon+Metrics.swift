import FoundationEssentials
public import WardenCore

/// Metrics at scrape time and the environment of hooks.
extension WardenDaemon {
    /// The metrics in the Prometheus text format, their gauges set from the core's state now;
    /// throws `.unavailable` while the daemon is stopping.
    public nonisolated func metricsExposition() async throws(LifecycleError) -> String? {
        let text = await onLoop { daemon in
            daemon.metrics.exposition(
                of: WardenMetrics.Reading(
                    apps: daemon.lifecycle.snapshots(at: daemon.now()), level: daemon.lifecycle.memoryLevel,
                    memory: daemon.policy.memory, device: daemon.parts.memory.deviceMemory()))
        }
        guard let text else { throw Self.stoppingError }
        return text
    }

    /// What every hook's environment holds besides its invocation's facts: the daemon's `PATH`,
    /// `HOME`, `LANG` and `TZ`, the control socket, and `APPWARDEN_DRY_RUN=1` in a dry run.
    static func hookEnvironment(options: WardenDaemonOptions) -> [String: String] {
        var environment: [String: String] = [:]
        let inherited = ProcessInfo.processInfo.environment
        for key in ["PATH", "HOME", "LANG", "TZ"] {
            if let value = inherited[key] { environment[key] = value }
        }
        environment["PATH"] = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        environment["APPWARDEN_SOCKET"] = options.socketPath
        if options.dryRun { environment["APPWARDEN_DRY_RUN"] = "1" }
        return environment
    }
}
