import Logging
import ServiceLifecycle

/// What `appwarden serve` runs in the daemon's task group besides the daemon: the control
/// socket, the metrics listener and the service manager's watchdog.
extension WardenDaemon {
    /// Adds the control server, the metrics listener (when asked for) and the watchdog to the
    /// daemon's task group. A listener that fails ends the group, and `run()` throws its error.
    func serve(_ serving: DaemonServing, in group: inout ThrowingDiscardingTaskGroup<any Error>) {
        let logger = logger
        let socket = options.socketPath
        let listening = "Serving on \(socket) with policy \(options.policyPath)\(options.dryRun ? " (dry run)" : "")."
        let control = control
        let server = ControlServer(
            control: control, socketPath: socket, adminGroup: serving.adminGroup, logger: logger,
            onListening: {
                logger.info("\(listening)")
                serving.notifier.ready(status: listening)
            })
        group.addTask {
            do {
                try await server.run()
            } catch {
                throw DaemonServingError("the control socket failed: \(error)")
            }
        }
        if let address = serving.metricsAddress {
            let metrics = MetricsServer(
                host: address.host, port: address.port, logger: logger,
                exposition: { try await control.metricsExposition() },
                onListening: { port in logger.info("Serving metrics on \(address.host):\(port)/metrics.") })
            group.addTask {
                do {
                    try await metrics.run()
                } catch {
                    throw DaemonServingError("the metrics listener on \(address.host):\(address.port) failed: \(error)")
                }
            }
        }
        if let interval = serving.notifier.watchdogInterval {
            group.addTask { await self.keepWatchdogFed(serving.notifier, every: interval) }
        }
    }

    /// Sends `WATCHDOG=1` every `interval` (half of systemd's `WatchdogSec=`) for as long as the
    /// daemon's loop takes jobs; a daemon stuck in a job misses the pings and systemd restarts it.
    private nonisolated func keepWatchdogFed(_ notifier: SystemdNotifier, every interval: Duration) async {
        let clock = parts.clock
        while !Task.isCancelled {
            do {
                try await clock.sleep(untilElapsed: clock.elapsed() + interval)
            } catch {
                return
            }
            if await onLoop({ daemon in daemon.phase.isRunning }) == true { notifier.watchdog() }
        }
    }
}

/// A listener of `appwarden serve` failed; the sentence says which and why.
public struct DaemonServingError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
