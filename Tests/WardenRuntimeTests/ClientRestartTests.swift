import Foundation
import Synchronization
import Testing
import WardenAPI
import WardenClient
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Apps talking through `WardenClient` keep their event streams across a daemon restart: a daemon
/// is stopped and a new one started on the same state directory, socket and cgroup root.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct ClientRestartTests {
    /// A ballast app with an open background task hears the new daemon's expiration warning,
    /// ends its task, and is suspended rather than killed.
    @Test func aReadoptedAppEndsItsTaskOnTheNewDaemonsWarningAndIsSuspended() async throws {
        let policy = """
            [apps.worker]
            command = "BALLAST"
            args = ["--hold", "1", "--begin-task", "upload", "--on-expiration", "end"]
            [apps.worker.background]
            grace = "1s"
            task_budget = "8s"
            expiration_warning = "4s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["worker"]) { harness in
            let socket = harness.options.socketPath
            let log = harness.options.logPath(of: "worker")
            let first = try await harness.start()
            try await ControlServerHarness.serve(first.control, on: socket) {
                _ = try await first.perform(.open(app: "worker"))
                #expect(
                    await eventually { await first.control.app(named: "worker")?.openTasks.map(\.name) == ["upload"] })
                _ = try await first.perform(.home)
                #expect(await first.stateName(of: "worker") == "background")
            }
            await first.stop()

            let second = try await harness.start()
            try await ControlServerHarness.serve(second.control, on: socket) {
                #expect(await second.stateName(of: "worker") == "background")
                let suspended = await eventually(within: .seconds(20)) {
                    await second.stateName(of: "worker") == "suspended"
                }
                let state = await second.stateName(of: "worker")
                #expect(suspended, "the worker is \(state); it wrote: \(Self.text(of: log))")
                #expect(try await second.terminationReasons(of: "worker").isEmpty)
                // The app ended its task after the warning (it is frozen at once, so its log
                // may not get to say so). The state is journaled once the freeze is done.
                func isEndedSuspension(_ entry: JournalEntry) -> Bool {
                    entry.kind == "state" && entry.name == "suspended"
                        && entry.properties["because"] == "its last background task ended"
                }
                _ = await eventually {
                    (try? await second.control.journal(JournalQuery(app: "worker")))?.contains(where: isEndedSuspension)
                        == true
                }
                let entries = try await second.control.journal(JournalQuery(app: "worker"))
                let warnings = entries.filter { $0.name == "expirationWarning" }
                #expect(warnings.count == 1)
                let ended = entries.filter(isEndedSuspension)
                #expect(ended.count == 1)
                #expect((warnings.first?.id ?? .max) < (ended.first?.id ?? .min))
                #expect(await second.control.app(named: "worker")?.openTasks.isEmpty == true)
            }
            await second.stop()
        }
    }

    /// A ballast app that was frozen across the restart answers the new daemon's fetch window
    /// (its stream reconnects when it is thawed) and is not killed with fetchTimeout.
    @Test func aReadoptedAppAnswersTheNewDaemonsFetch() async throws {
        let policy = """
            [apps.reader]
            command = "BALLAST"
            args = ["--hold", "1", "--fetch", "complete:newData:100ms"]
            background_modes = ["fetch"]
            fetch_interval = "minimum"
            [apps.reader.fetch]
            window = "5s"
            minimum_interval = "3s"
            coalesce = "1s"
            [apps.reader.background]
            grace = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["reader"]) { harness in
            let socket = harness.options.socketPath
            let log = harness.options.logPath(of: "reader")
            func fetches(_ daemon: WardenDaemon) async throws -> Int {
                try await daemon.control.journal(JournalQuery(app: "reader")).filter { $0.name == "fetchStart" }.count
            }
            let first = try await harness.start()
            try await ControlServerHarness.serve(first.control, on: socket) {
                let answered = await eventually(within: .seconds(20)) {
                    let count = (try? await fetches(first)) ?? 0
                    let state = await first.stateName(of: "reader")
                    return count == 1 && state == "suspended"
                }
                #expect(answered, "the app wrote: \(Self.text(of: log))")
            }
            await first.stop()

            let second = try await harness.start()
            try await ControlServerHarness.serve(second.control, on: socket) {
                let answered = await eventually(within: .seconds(20)) {
                    let count = (try? await fetches(second)) ?? 0
                    let state = await second.stateName(of: "reader")
                    return count >= 2 && state == "suspended"
                }
                #expect(answered, "the app wrote: \(Self.text(of: log))")
                let reasons = try await second.terminationReasons(of: "reader")
                #expect(reasons.isEmpty)
            }
            await second.stop()
        }
    }

    /// A push journaled while the client was disconnected is handled once after it reconnects to
    /// the new daemon, between the pushes before and after, each handled exactly once.
    @Test func anEventEmittedWhileDisconnectedIsDeliveredExactlyOnce() async throws {
        let policy = """
            [apps.chat]
            command = "/bin/sh"
            args = ["-c", "while true; do sleep 0.2; done"]
            background_modes = ["remote-notification"]
            [apps.chat.push]
            max_per_hour = 10
            """
        func payload(_ id: String) -> String { #"{"aps":{"content-available":1},"id":"\#(id)"}"# }
        try await DaemonHarness.run(policy: policy, apps: ["chat"]) { harness in
            let socket = harness.options.socketPath
            let first = try await harness.start()
            let since = try await first.control.journal(JournalQuery(limit: 100_000)).last?.id ?? 0
            let application = WardenApplication(socketPath: socket, appName: "chat", eventsSince: since)
            let handled = Mutex<[String]>([])
            application.onPush { payload, completion in
                handled.withLock { $0.append(payload) }
                completion(.newData)
            }
            let handledPayloads = { handled.withLock { $0 } }
            let runner = Task { try await application.run() }
            defer { runner.cancel() }

            try await ControlServerHarness.serve(first.control, on: socket) {
                let firstReply = try await first.perform(
                    .push(target: .app("chat"), payload: payload("p0"), id: nil))
                #expect(firstReply == .push(.delivered))
                #expect(await eventually { handledPayloads() == [payload("p0")] })
            }
            // The server is gone: the client is disconnected while the daemon journals a push.
            let missed = try await first.perform(.push(target: .app("chat"), payload: payload("p1"), id: nil))
            #expect(missed == .push(.delivered))
            await first.stop()

            let second = try await harness.start()
            try await ControlServerHarness.serve(second.control, on: socket) {
                #expect(
                    await eventually(within: .seconds(15)) { handledPayloads().count >= 2 },
                    "handled: \(handledPayloads())")
                let lastReply = try await second.perform(
                    .push(target: .app("chat"), payload: payload("p2"), id: nil))
                #expect(lastReply == .push(.delivered))
                #expect(await eventually { handledPayloads().count >= 3 })
                // Time for a repeat to show up, were one coming.
                try await Task.sleep(for: .milliseconds(500))
                #expect(handledPayloads() == [payload("p0"), payload("p1"), payload("p2")])
                let delivered = try await second.control.journal(JournalQuery(app: "chat")).filter {
                    $0.name == "pushPayload"
                }
                #expect(delivered.count == 3)
            }
            runner.cancel()
            await second.stop()
        }
    }

    /// The text of a file, or a note that it could not be read.
    static func text(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(no log at \(path))"
    }
}

/// `appwarden serve` killed with SIGKILL and started again, with a ballast app and
/// `appwarden watch` following along.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresBallast, .requiresAppwardenExecutable)
struct ClientRestartCommandLineTests {
    /// After a SIGKILL of the daemon and a new start, the ballast app still ends its task on the
    /// new daemon's warning and is suspended, and `watch` says it lost and found the daemon and
    /// prints every entry once.
    @Test func appsAndWatchSurviveADaemonKilledWithSigkill() async throws {
        let policy = """
            [apps.worker]
            command = "BALLAST"
            args = ["--hold", "1", "--begin-task", "upload", "--on-expiration", "end"]
            [apps.worker.background]
            grace = "1s"
            task_budget = "10s"
            expiration_warning = "5s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["worker"]) { harness in
            let options = harness.options
            let socket = options.socketPath
            let serve = [
                "serve", "--policy", options.policyPath, "--socket", socket, "--state-dir", options.stateDirectory,
                "--cgroup-root", options.cgroupRoot,
            ]
            let watchOutput = harness.directory + "/watch.out"
            let watchErrors = harness.directory + "/watch.err"
            var launched: [Process] = []
            defer {
                for process in launched where process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                }
            }
            let first = try Self.launch(serve, log: harness.directory + "/serve-1.log")
            launched.append(first)
            #expect(await eventually { await DaemonServeTests.answers(socket) })
            let watch = try Self.launch(
                ["watch", "--json", "--app", "worker", "--socket", socket], log: watchErrors, output: watchOutput)
            launched.append(watch)
            let open = try await AppwardenCommandLine.run(["open", "worker", "--socket", socket])
            #expect(open.code == 0, "open said: \(open.error)")
            #expect(await eventually { await Self.status(of: "worker", socket).contains("\"upload\"") })
            let home = try await AppwardenCommandLine.run(["home", "--socket", socket])
            #expect(home.code == 0, "home said: \(home.error)")
            #expect(await eventually { Self.text(watchOutput).contains("\"$AppEnd\"") })

            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            let second = try Self.launch(serve, log: harness.directory + "/serve-2.log")
            launched.append(second)
            #expect(await eventually { await DaemonServeTests.answers(socket) })

            let suspended = await eventually(within: .seconds(25)) {
                await Self.status(of: "worker", socket).contains("\"suspended\"")
            }
            let log = ClientRestartTests.text(of: options.logPath(of: "worker"))
            let status = await Self.status(of: "worker", socket)
            #expect(suspended, "status: \(status); the app wrote: \(log)")
            let reasons = try await AppwardenCommandLine.run([
                "events", "--app", "worker", "--json", "--socket", socket,
            ])
            #expect(!reasons.output.contains("backgroundTaskExpired"))
            #expect(await eventually { Self.text(watchOutput).contains("\"its last background task ended\"") })
            let errors = Self.text(watchErrors)
            #expect(errors.contains("appwarden: lost the daemon at \(socket)"), "watch said: \(errors)")
            #expect(errors.contains("appwarden: connected to the daemon at \(socket) again"), "watch said: \(errors)")
            let ids = Self.text(watchOutput).split(separator: "\n").compactMap { line in
                (try? JSONDecoder().decode(JournalEntry.self, from: Data(line.utf8)))?.id
            }
            #expect(!ids.isEmpty)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count, "watch printed ids \(ids)")
            #expect(Self.text(watchOutput).contains("\"expirationWarning\""))
            watch.terminate()
            #expect(await DaemonServeTests.stop(second) == 0)
        }
    }

    /// Starts the executable with `arguments`, standard error (and output, unless given) to `log`.
    static func launch(_ arguments: [String], log: String, output: String? = nil) throws -> Process {
        let process = try AppwardenCommandLine.process(arguments)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: output)
        } else {
            process.standardOutput = FileHandle(forWritingAtPath: log)
        }
        try process.run()
        return process
    }

    /// `appwarden status APP --json`, or an empty string.
    static func status(of app: String, _ socket: String) async -> String {
        (try? await AppwardenCommandLine.run(["status", app, "--json", "--socket", socket]).output) ?? ""
    }

    static func text(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
