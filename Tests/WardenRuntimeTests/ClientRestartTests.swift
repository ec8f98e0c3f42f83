import Foundation
import Synchronization
import Testing
import WardenAPI
import WardenClient
import WardenCore
import WardenRuntime

/// Apps talking through `WardenClient` keep their event streams across a daemon restart: a daemon
/// is stopped and a new one started on the same state directory, socket and cgroup root.
@Suite(.serialized, .enabled(if: DaemonTestHost.isReady, "needs root, a cgroup2 mount and the ballast executable"))
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
            try await ControlServerHarness.serve(first, on: socket) {
                _ = try await first.perform(.open(app: "worker"))
                #expect(await eventually { await first.app(named: "worker")?.openTasks.map(\.name) == ["upload"] })
                _ = try await first.perform(.home)
                #expect(await first.stateName(of: "worker") == "background")
            }
            await first.stop()

            let second = try await harness.start()
            try await ControlServerHarness.serve(second, on: socket) {
                #expect(await second.stateName(of: "worker") == "background")
                let suspended = await eventually(within: .seconds(20)) {
                    await second.stateName(of: "worker") == "suspended"
                }
                let state = await second.stateName(of: "worker")
                #expect(suspended, "the worker is \(state); it wrote: \(Self.text(of: log))")
                #expect(try await second.terminationReasons(of: "worker").isEmpty)
                // The app ended its task after the warning (it is frozen at once, so its log
                // may not get to say so).
                let entries = try await second.journal(JournalQuery(app: "worker"))
                let warnings = entries.filter { $0.name == "expirationWarning" }
                #expect(warnings.count == 1)
                let ended = entries.filter {
                    $0.kind == "state" && $0.name == "suspended"
                        && $0.properties["because"] == "its last background task ended"
                }
                #expect(ended.count == 1)
                #expect((warnings.first?.id ?? .max) < (ended.first?.id ?? .min))
                #expect(await second.app(named: "worker")?.openTasks.isEmpty == true)
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
            let since = try await first.journal(JournalQuery(limit: 100_000)).last?.id ?? 0
            let application = WardenApplication(socketPath: socket, appName: "chat", eventsSince: since)
            let handled = Mutex<[String]>([])
            application.onPush { payload, completion in
                handled.withLock { $0.append(payload) }
                completion(.newData)
            }
            let handledPayloads = { handled.withLock { $0 } }
            let runner = Task { try await application.run() }
            defer { runner.cancel() }

            try await ControlServerHarness.serve(first, on: socket) {
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
            try await ControlServerHarness.serve(second, on: socket) {
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
                let delivered = try await second.journal(JournalQuery(app: "chat")).filter { $0.name == "pushPayload" }
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
