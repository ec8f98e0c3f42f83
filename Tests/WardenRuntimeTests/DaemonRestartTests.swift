import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// What a restarted daemon continues: armed deadlines at their absolute times, and the watch on
/// the processes it re-adopts.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonRestartTests {
    /// A planned fetch wake keeps its wall-clock time across a restart instead of being planned
    /// again from the restart.
    @Test func aRestartKeepsThePlannedFetchWake() async throws {
        let policy = """
            [apps.news]
            command = "BALLAST"
            background_modes = ["fetch"]
            fetch_interval = "1h"
            """
        try await DaemonHarness.run(policy: policy, apps: ["news"]) { harness in
            let first = try await harness.start()
            // The first event plans the wakes.
            _ = try await first.perform(.home)
            let planned = try #require(await first.control.app(named: "news")?.nextWakeMillis)
            await first.stop()
            try await Task.sleep(for: .seconds(2))

            let second = try await harness.start()
            _ = try await second.perform(.home)
            let replanned = try #require(await second.control.app(named: "news")?.nextWakeMillis)
            #expect(abs(replanned - planned) < 500, "the wake moved by \(replanned - planned) ms")
            await second.stop()
        }
    }

    /// The daemon hands out 128-bit random device tokens; the token survives a restart in the
    /// checkpoint, and after a reset the old one is refused as unregistered.
    @Test func randomDeviceTokensSurviveARestartAndRotateOnReset() async throws {
        let policy = """
            [apps.chat]
            command = "BALLAST"
            background_modes = ["remote-notification"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["chat"]) { harness in
            let first = try await harness.start()
            guard case .deviceToken(let token)? = try await first.perform(.registerPush(app: "chat")) else {
                Issue.record("register-push answered no token")
                return
            }
            #expect(token.count == 32 && token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            await first.stop()

            let second = try await harness.start()
            guard case .deviceToken(let again)? = try await second.perform(.registerPush(app: "chat")) else {
                Issue.record("register-push answered no token after the restart")
                return
            }
            #expect(again == token)
            _ = try await second.perform(.reset(app: "chat"))
            guard case .deviceToken(let rotated)? = try await second.perform(.registerPush(app: "chat")) else {
                Issue.record("register-push answered no token after the reset")
                return
            }
            #expect(rotated != token && rotated.count == 32)
            do {
                _ = try await second.perform(.push(target: .token(token), payload: #"{"aps":{}}"#, id: nil))
                Issue.record("a push to the stale token was accepted")
            } catch let error as LifecycleError {
                #expect(error.code == .unregistered)
            }
            await second.stop()
        }
    }

    /// The end of a re-adopted process is noticed through its pidfd, long before the next
    /// memory sweep, and journaled with its status unknown.
    @Test func aReadoptedProcessThatEndsIsNoticedAtOnce() async throws {
        let policy = """
            [apps.steady]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["steady"]) { harness in
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "steady"))
            #expect(await eventually { await first.control.app(named: "steady")?.pids.isEmpty == false })
            let pid = try #require(await first.control.app(named: "steady")?.pids.first)
            await first.stop()

            // Sweeps an hour apart: only the pidfd can notice the end.
            var options = harness.options
            options.sampleInterval = .seconds(3600)
            let second = try await harness.start(options: options)
            #expect(await second.stateName(of: "steady") == "active")
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            #expect(await eventually(within: .seconds(10)) { await second.stateName(of: "steady") == "notRunning" })
            let notes = try await second.control.journal(JournalQuery(app: "steady")).compactMap {
                $0.properties["text"]
            }
            #expect(notes.contains("Process \(pid) ended; exit status unknown (re-adopted process)."))
            #expect(try await second.terminationReasons(of: "steady") == ["exited"])
            await second.stop()
        }
    }
}
