import ArgumentParser
import FoundationEssentials
import Logging
import ServiceLifecycle
import UnixSignals
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

    @Option(help: "The control socket (default: $APPWARDEN_SOCKET, else /run/appwarden.sock), as for the clients.")
    var socket: String?

    @Option(name: .customLong("state-dir"), help: "Where the journal, app logs and restoration directories live.")
    var stateDirectory = "/var/lib/appwarden"

    @Option(name: .customLong("cgroup-root"), help: "The name of appwarden's group in each cgroup hierarchy.")
    var cgroupRoot = "appwarden"

    @Option(
        name: .customLong("lock-dir"),
        help: "Where the lock named after the cgroup root lives, shared by every daemon of the device.")
    var lockDirectory = "/run/appwarden"

    @Flag(
        help:
            "Launch and drive the apps as usual, but only log what would be frozen or killed (the SIGTERM of a force-quit or a policy change is still sent)."
    )
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
        let format = WardenLogHandler.format(journalStream: ProcessInfo.processInfo.environment["JOURNAL_STREAM"])
        LoggingSystem.bootstrap { label in WardenLogHandler(label: label, format: format) }
        let logger = Logger(label: "appwarden")
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
        let serving = DaemonServing(
            adminGroup: groupID, metricsAddress: metricsAddress.flatMap { try? MetricsServer.address($0) },
            notifier: notifier)
        let options = WardenDaemonOptions(
            policyPath: policy, socketPath: ClientOptions.socketPath(socket), stateDirectory: stateDirectory,
            cgroupRoot: cgroupRoot,
            dryRun: dryRun, stopAppsOnExit: stopAppsOnExit, lockDirectory: lockDirectory, serving: serving,
            locksMemory: true)
        let daemon: WardenDaemon
        do {
            daemon = try await WardenDaemon.make(options: options, logger: logger)
        } catch {
            Self.printError("appwarden serve: \(error.message)\n")
            throw ExitCode(2)
        }
        // SIGTERM and SIGINT stop the daemon gracefully: it saves its state and leaves the apps
        // running for the next start.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: daemon)], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Self.quiet(logger)))
        do {
            try await group.run()
        } catch let failure as DaemonServingError {
            Self.printError("appwarden serve: \(failure)\n")
            throw ExitCode(2)
        }
    }

    /// The logger handed to the service group: only its errors, since the daemon logs its own start and stop.
    private static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = .error
        return quiet
    }

    /// Writes `text` to standard error.
    private static func printError(_ text: String) {
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}
