import Foundation
import NIOHTTP1
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The control server in front of the real daemon, with real apps in real groups calling it.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresBallast,
    // The app in these tests calls the socket with curl.
    .requiresExecutable("/usr/bin/curl")
)
struct ControlServerDaemonTests {
    /// A process of app "a" cannot end app "b"'s task, read b's events or use an operator verb
    /// (403 each); it can read its own events, and b's task stays open.
    @Test func anAppsProcessCannotActForAnotherApp() async throws {
        let script = """
            sleep 0.3
            call() { curl -s -o "DIR/$1.json" -w '%{http_code}' --unix-socket "$APPWARDEN_SOCKET" "${@:2}" > "DIR/$1.code"; }
            call end -X POST -H 'Content-Type: application/json' -d '{"id":1}' http://localhost/v1/apps/b/end-task
            call events 'http://localhost/v1/events?app=b'
            call home -X POST http://localhost/v1/home
            call own 'http://localhost/v1/events?app=a'
            touch DIR/done
            exec sleep 600
            """
        let policy = """
            foreground_slots = 2
            [apps.a]
            command = "/bin/bash"
            args = ["-c", '''\(script)''']
            [apps.b]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["a", "b"]) { harness in
            let daemon = try await harness.start()
            try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                _ = try await daemon.perform(.open(app: "b"))
                #expect(await eventually { await daemon.stateName(of: "b") == "active" })
                guard case .taskBegun(let id, _) = try await daemon.perform(.beginTask(app: "b", name: "sync")) else {
                    Issue.record("begin-task answered no task id")
                    return
                }
                #expect(id == 1)
                _ = try await daemon.perform(.open(app: "a"))
                let dir = harness.directory
                #expect(await eventually { FileManager.default.fileExists(atPath: dir + "/done") })
                func code(_ name: String) throws -> String {
                    try String(contentsOfFile: "\(dir)/\(name).code", encoding: .utf8)
                }
                #expect(try code("end") == "403")
                #expect(try code("events") == "403")
                #expect(try code("home") == "403")
                #expect(try code("own") == "200")
                let refusal = try JSONDecoder().decode(
                    APIErrorBody.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/end.json")))
                #expect(refusal.error == "forbidden")
                #expect(refusal.message.contains("\"a\"") && refusal.message.contains("\"b\""))
                #expect(await daemon.control.app(named: "b")?.openTasks.map(\.id) == [1])
                #expect(await daemon.stateName(of: "b") == "active")
            }
            await daemon.stop()
        }
    }

    /// An oversize payload (413), malformed JSON (400), an unknown app (404) and a stale token
    /// (410) are refused with their status, and the apps and the journal stay as they were.
    @Test func badInputIsRefusedAndChangesNothing() async throws {
        let policy = """
            [apps.b]
            command = "BALLAST"
            args = ["--hold", "1"]
            background_modes = ["remote-notification"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["b"]) { harness in
            let daemon = try await harness.start()
            let socket = harness.options.socketPath
            try await ControlServerHarness.serve(daemon.control, on: socket) {
                func request(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> (
                    status: Int, body: String
                ) {
                    try await ControlServerHarness.request(socketPath: socket, method, path, body: body)
                }
                #expect(try await request(.POST, "/v1/open/b").status == 200)
                #expect(await eventually { await daemon.stateName(of: "b") == "active" })
                let (_, tokenBody) = try await request(.POST, "/v1/apps/b/register-push")
                let stale = try JSONDecoder().decode(ControlReplies.DeviceToken.self, from: Data(tokenBody.utf8)).token
                #expect(try await request(.POST, "/v1/reset/b").status == 200)
                #expect(await eventually { await daemon.stateName(of: "b") == "notRunning" })
                #expect(try await request(.POST, "/v1/open/b").status == 200)
                #expect(await eventually { await daemon.stateName(of: "b") == "active" })
                try await Task.sleep(for: .milliseconds(300))

                let appsBefore = try await daemon.control.apps().map {
                    [$0.name, $0.state.rawValue, $0.status.rawValue, "\($0.openTasks)"]
                }
                let journalBefore = try await daemon.control.journal(JournalQuery(app: "b", limit: 100_000)).count

                let oversize = #"{"aps":{"content-available":1},"pad":""# + String(repeating: "x", count: 4100) + #""}"#
                let (tooLarge, tooLargeBody) = try await request(.POST, "/v1/push/b", oversize)
                #expect(tooLarge == 413)
                #expect(try ControlServerHarness.error(tooLargeBody).error == "payloadTooLarge")
                let (malformed, malformedBody) = try await request(.POST, "/v1/apps/b/begin-task", #"{"name":"#)
                #expect(malformed == 400)
                #expect(try ControlServerHarness.error(malformedBody).message.contains("not valid JSON"))
                #expect(try await request(.POST, "/v1/push/b", "{not json").status == 400)
                let (unknown, unknownBody) = try await request(.POST, "/v1/open/nobody")
                #expect(unknown == 404)
                #expect(try ControlServerHarness.error(unknownBody).message.contains("nobody"))
                #expect(try await request(.POST, "/v1/apps/b/end-task", #"{"id":99}"#).status == 404)
                let (gone, goneBody) = try await request(
                    .POST, "/v1/push-token/\(stale)", #"{"aps":{"content-available":1}}"#)
                #expect(gone == 410)
                #expect(try ControlServerHarness.error(goneBody).error == "unregistered")

                let appsAfter = try await daemon.control.apps().map {
                    [$0.name, $0.state.rawValue, $0.status.rawValue, "\($0.openTasks)"]
                }
                #expect(appsAfter == appsBefore)
                #expect(try await daemon.control.journal(JournalQuery(app: "b", limit: 100_000)).count == journalBefore)
            }
            await daemon.stop()
        }
    }
}
