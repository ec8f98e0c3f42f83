import ArgumentParser
import Dispatch
import Logging
import WardenAPI
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `appwarden serve`: runs the daemon and its control API until SIGTERM or SIGINT.
///
/// Exit status: 0 after a clean stop, 2 when another daemon already runs with the same state
/// directory, cgroup root or socket (the message names its pid), or when the policy, the state
/// directory, the cgroups or the socket cannot be set up (the message says which and why).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the daemon: launch the policy's apps, drive their lifecycle, answer the control API.",
        discussion: """
            On SIGTERM or SIGINT it stops accepting calls, saves its state and removes the socket; \
            the apps keep running and are re-adopted by the next start, unless --stop-apps-on-exit is given.
            """
    )

    @Option(help: "The policy file (TOML).")
    var policy: String

    @Option(help: "The control socket.")
    var socket = "/run/appwarden.sock"

    @Option(name: .customLong("state-dir"), help: "Where the journal, app logs and restoration directories live.")
    var stateDirectory = "/var/lib/appwarden"

    @Option(name: .customLong("cgroup-root"), help: "The name of appwarden's group in each cgroup hierarchy.")
    var cgroupRoot = "appwarden"

    @Option(
        name: .customLong("lock-dir"),
        help: "Where the lock named after the cgroup root lives, shared by every daemon of the device.")
    var lockDirectory = "/run/appwarden"

    @Flag(help: "Log what would be frozen or killed, and do neither.")
    var dryRun = false

    @Flag(help: "Stop every app when the daemon stops.")
    var stopAppsOnExit = false

    @Option(help: "The group whose members may use operator verbs (default: \"appwarden\" if it exists).")
    var adminGroup: String?

    @Option(
        name: .customLong("metrics-address"),
        help: "Also serve GET /metrics (and nothing else) over TCP at HOST:PORT, such as 127.0.0.1:9464.")
    var metricsAddress: String?

    func validate() throws {
        guard !cgroupRoot.isEmpty, !cgroupRoot.contains("/"), cgroupRoot != ".", cgroupRoot != ".." else {
            throw ValidationError(
                "--cgroup-root needs a plain group name such as \"appwarden\", not \"\(cgroupRoot)\".")
        }
        if let metricsAddress {
            do {
                _ = try MetricsServer.address(metricsAddress)
            } catch {
                throw ValidationError("--metrics-address: \(error.message)")
            }
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in WardenLogHandler(label: label) }
        let logger = Logger(label: "appwarden")
        let options = WardenDaemonOptions(
            policyPath: policy, socketPath: socket, stateDirectory: stateDirectory, cgroupRoot: cgroupRoot,
            dryRun: dryRun, stopAppsOnExit: stopAppsOnExit, lockDirectory: lockDirectory)
        let groupID: gid_t?
        if let adminGroup {
            guard let entry = getgrnam(adminGroup) else {
                throw ValidationError("--admin-group names \"\(adminGroup)\", which is not a group on this system.")
            }
            groupID = entry.pointee.gr_gid
        } else {
            groupID = getgrnam("appwarden").map { $0.pointee.gr_gid }
        }
        // Read before any app is launched, so that apps do not inherit the service manager's socket.
        let notifier = SystemdNotifier.fromProcessEnvironment()
        let daemon: WardenDaemon
        do {
            daemon = try await WardenDaemon.start(options: options, logger: logger)
        } catch {
            Self.printError("appwarden serve: \(error.message)\n")
            throw ExitCode(2)
        }
        let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
        let listening = "Serving on \(socket) with policy \(policy)\(dryRun ? " (dry run)" : "")."
        let server = ControlServer(
            control: daemon, socketPath: socket, adminGroup: groupID, logger: logger,
            onListening: {
                logger.info("\(listening)")
                notifier.ready(status: listening)
                readyContinuation.yield()
            })
        let failure: (any Error)? = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do {
                    try await server.run()
                    return nil
                } catch {
                    return error
                }
            }
            if let metricsAddress, let address = try? MetricsServer.address(metricsAddress) {
                let metrics = MetricsServer(
                    host: address.host, port: address.port, logger: logger,
                    exposition: { await daemon.metricsExposition() },
                    onListening: { port in logger.info("Serving metrics on \(address.host):\(port)/metrics.") })
                group.addTask {
                    do {
                        try await metrics.run()
                        return nil
                    } catch {
                        return MetricsListenerError(address: metricsAddress, cause: error)
                    }
                }
            }
            group.addTask {
                let signal = await Self.nextTerminationSignal()
                logger.info("Stopping on signal \(signal).")
                notifier.stopping(status: "Stopping on signal \(signal).")
                return nil
            }
            if let interval = notifier.watchdogInterval {
                group.addTask {
                    await Self.keepWatchdogFed(notifier, every: interval, daemon: daemon, after: ready)
                    return nil
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await daemon.stop()
        if let failure = failure as? MetricsListenerError {
            Self.printError(
                "appwarden serve: the metrics listener on \(failure.address) failed: \(failure.cause)\n")
            throw ExitCode(2)
        } else if let failure {
            Self.printError("appwarden serve: the control socket failed: \(failure)\n")
            throw ExitCode(2)
        }
    }

    /// Once `ready` yields (READY=1 was sent), sends `WATCHDOG=1` every `interval` (half of
    /// systemd's `WatchdogSec=`) for as long as the daemon's actor answers a health call, until
    /// cancelled; a daemon stuck in its actor misses the pings and systemd restarts it.
    static func keepWatchdogFed(
        _ notifier: SystemdNotifier, every interval: Duration, daemon: WardenDaemon, after ready: AsyncStream<Void>
    ) async {
        for await _ in ready { break }
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            let health = await daemon.health()
            if health.ok { notifier.watchdog() }
        }
    }

    /// Writes `text` to standard error.
    private static func printError(_ text: String) {
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    /// Waits for SIGTERM or SIGINT and returns its number.
    static func nextTerminationSignal() async -> Int32 {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let queue = DispatchQueue(label: "appwarden.signals")
        return await withCheckedContinuation { continuation in
            let fired = SignalLatch(continuation)
            for number in [SIGTERM, SIGINT] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { fired.fire(number) }
                source.resume()
                fired.keep(source)
            }
        }
    }
}

/// The metrics listener could not bind or failed while serving.
private struct MetricsListenerError: Error {
    var address: String
    var cause: any Error
}

/// Resumes a continuation once, with the first signal, and keeps the signal sources alive.
private final class SignalLatch: @unchecked Sendable {
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Int32, Never>) {
        self.continuation = continuation
    }

    /// Called on the signal queue only.
    func fire(_ number: Int32) {
        continuation?.resume(returning: number)
        continuation = nil
    }

    func keep(_ source: any DispatchSourceSignal) {
        sources.append(source)
    }
}
