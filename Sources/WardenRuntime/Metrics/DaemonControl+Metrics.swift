public import WardenCore

/// Metrics at scrape time.
extension DaemonControl {
    /// The metrics in the Prometheus text format, their gauges set from the core's state now;
    /// throws `.unavailable` while the daemon is stopping.
    public func metricsExposition() async throws(LifecycleError) -> String? {
        let text = await daemon.onLoop { daemon in
            daemon.metrics.exposition(
                of: WardenMetrics.Reading(
                    apps: daemon.lifecycle.snapshots(at: daemon.clock.now()), level: daemon.lifecycle.memoryLevel,
                    memory: daemon.policy.memory, device: daemon.parts.memory.deviceMemory()))
        }
        guard let text else { throw WardenDaemon.stoppingError }
        return text
    }
}
