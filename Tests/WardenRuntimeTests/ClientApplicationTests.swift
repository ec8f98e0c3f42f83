import Foundation
import Synchronization
import Testing
import WardenAPI
import WardenCore

@testable import WardenClient

/// Lines written from any thread, read back in order.
private final class LineLog: Sendable {
    private let lines = Mutex<[String]>([])

    init(_ initial: [String] = []) {
        lines.withLock { $0 = initial }
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func removeFirst() -> String { lines.withLock { $0.removeFirst() } }
    var all: [String] { lines.withLock { $0 } }
}

/// Records the status changes it hears about.
private final class RecordingObserver: AppStatusObserver, Sendable {
    let label: String
    let log: LineLog

    init(label: String, log: LineLog) {
        self.label = label
        self.log = log
    }

    func appStatusDidChange(app: String, to status: AppStatus) {
        log.append("\(label) \(app) \(status)")
    }
}

@Suite struct ClientApplicationTests {
    /// Beginning a task posts its name to the app's route and returns the daemon's id; ending it posts the id.
    @Test func backgroundTasksUseTheAppRoutes() async throws {
        let server = try ClientTestServer { request in
            request.path.hasSuffix("begin-task")
                ? [ClientTestServer.response(200, #"{"id":4,"remainingMillis":600000}"#)]
                : [ClientTestServer.response(200, #"{"ok":true}"#)]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        let task = try await application.beginBackgroundTask(withName: "upload")
        #expect(task.rawValue == 4)
        try await application.endBackgroundTask(task)
        #expect(server.requests.map(\.path) == ["/v1/apps/mail/begin-task", "/v1/apps/mail/end-task"])
        #expect(server.requests.map(\.body) == [#"{"name":"upload"}"#, #"{"id":4}"#])
    }

    /// Beginning an activity posts its mode to the app's route and returns the daemon's id;
    /// ending it posts the id.
    @Test func activitiesUseTheAppRoutes() async throws {
        let server = try ClientTestServer { request in
            request.path.hasSuffix("begin-activity")
                ? [ClientTestServer.response(200, #"{"id":2}"#)]
                : [ClientTestServer.response(200, #"{"ok":true}"#)]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "music")
        let activity = try await application.beginActivity("audio")
        #expect(activity.rawValue == 2)
        try await application.endActivity(activity)
        #expect(server.requests.map(\.path) == ["/v1/apps/music/begin-activity", "/v1/apps/music/end-activity"])
        #expect(server.requests.map(\.body) == [#"{"mode":"audio"}"#, #"{"id":2}"#])
    }

    /// Time remaining is in seconds, and unlimited in the foreground.
    @Test func timeRemainingIsInSecondsOrUnlimited() async throws {
        let answers = LineLog([#"{"remainingMillis":1500}"#, #"{}"#])
        let server = try ClientTestServer { _ in
            [ClientTestServer.response(200, answers.removeFirst())]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        #expect(try await application.backgroundTimeRemaining == 1.5)
        #expect(try await application.backgroundTimeRemaining == .greatestFiniteMagnitude)
        #expect(server.requests.map(\.method) == ["GET", "GET"])
    }

    /// A refused call throws the daemon's sentence with its status.
    @Test func refusedCallThrowsTheSentence() async throws {
        let server = try ClientTestServer { _ in
            [ClientTestServer.response(404, #"{"error":"notFound","message":"mail has no task 9."}"#)]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        let error = await #expect(throws: WardenClientError.self) {
            try await application.endBackgroundTask(BackgroundTaskIdentifier(rawValue: 9))
        }
        #expect(error?.status == 404)
        #expect(error?.message == "mail has no task 9.")
    }

    /// The device token comes from register-push.
    @Test func registerReturnsTheToken() async throws {
        let server = try ClientTestServer { _ in [ClientTestServer.response(200, #"{"token":"tok-1"}"#)] }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "maps")
        #expect(try await application.registerForRemoteNotifications() == "tok-1")
        #expect(server.requests.first?.path == "/v1/apps/maps/register-push")
    }

    /// Without the daemon's environment every call fails with a sentence naming the variables.
    @Test func unconfiguredApplicationRefusesCalls() async {
        let application = WardenApplication(environment: [:])
        let error = await #expect(throws: WardenClientError.self) { try await application.ready() }
        #expect(error?.code == .notConfigured)
        #expect(error?.message.contains("APPWARDEN_SOCKET") == true)
    }

    /// The environment gives the launch reason, the restoration directory and whether to restore.
    @Test func environmentConfiguresTheLaunch() {
        let application = WardenApplication(environment: [
            "APPWARDEN_SOCKET": "/run/appwarden.sock", "APPWARDEN_APP": "mail", "APPWARDEN_LAUNCH_REASON": "push",
            "APPWARDEN_RESTORATION_DIR": "/var/lib/appwarden/mail", "APPWARDEN_RESTORE": "1",
        ])
        #expect(application.appName == "mail")
        #expect(application.connection?.socketPath == "/run/appwarden.sock")
        #expect(application.launchReason == .push)
        #expect(application.restorationDirectory == "/var/lib/appwarden/mail")
        #expect(application.shouldRestore)
    }

    /// An expiration warning calls the handlers of exactly the named tasks.
    @Test func expirationWarningCallsTheNamedTasksHandlers() async throws {
        let server = try ClientTestServer { request in
            let id = request.body.contains("first") ? 1 : 2
            return [ClientTestServer.response(200, #"{"id":\#(id),"remainingMillis":10000}"#)]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        let expired = LineLog()
        _ = try await application.beginBackgroundTask(withName: "first") { expired.append("first") }
        _ = try await application.beginBackgroundTask(withName: "second") { expired.append("second") }
        application.handle(
            JournalEntry(
                id: 3, app: "mail", wallTimeMillis: 0, kind: "message", name: "expirationWarning",
                properties: ["task_ids": "2", "remaining_ms": "5000"]))
        #expect(expired.all == ["second"])
    }

    /// Observers hear status changes in registration order, once per change, and status(of:) follows.
    @Test func observersHearChangesInOrder() {
        let application = WardenApplication(socketPath: "/nonexistent.sock", appName: "mail")
        let log = LineLog()
        application.addObserver(RecordingObserver(label: "a", log: log))
        application.addObserver(RecordingObserver(label: "b", log: log))
        #expect(application.status(of: "mail") == .unknown)
        application.handle(JournalEntry(id: 1, app: "mail", wallTimeMillis: 0, kind: "status", name: "foreground"))
        #expect(application.isInForeground("mail"))
        application.handle(
            JournalEntry(
                id: 2, app: "mail", wallTimeMillis: 0, kind: "message", name: "stateChanged",
                properties: ["state": "active"]))
        application.handle(
            JournalEntry(
                id: 3, app: "mail", wallTimeMillis: 0, kind: "message", name: "stateChanged",
                properties: ["state": "suspended"]))
        #expect(application.status(of: "mail") == .background)
        #expect(!application.isInForeground("mail"))
        #expect(
            log.all == ["a mail foreground", "b mail foreground", "a mail background", "b mail background"])
    }

    /// A fetch window calls the fetch handler, whose completion posts the result.
    @Test func fetchHandlerCompletionPostsTheResult() async throws {
        let server = try ClientTestServer { _ in [ClientTestServer.response(200, #"{"ok":true}"#)] }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        application.onFetch { completion in completion(.noData) }
        application.handle(
            JournalEntry(
                id: 1, app: "mail", wallTimeMillis: 0, kind: "message", name: "fetchStart",
                properties: ["window_ms": "30000"]))
        for _ in 0..<200 where server.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.requests.map(\.path) == ["/v1/apps/mail/complete-fetch"])
        #expect(server.requests.first?.body == #"{"result":"noData"}"#)
    }

    /// run() feeds the push payload from the live stream to the push handler, once, though the
    /// stream closes and the daemon sends the entry again on the next connection.
    @Test func runDeliversPushesFromTheStream() async throws {
        let entry =
            #"{"id":5,"app":"mail","wallTimeMillis":1,"kind":"message","name":"pushPayload","properties":{"payload":"{\"k\":1}","window_ms":"30000"}}"#
        let server = try ClientTestServer { request in
            request.path.hasPrefix("/v1/events/stream")
                ? ["HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n", "id: 5\ndata: \(entry)\n\n"]
                : [ClientTestServer.response(200, #"{"ok":true}"#)]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        let payloads = LineLog()
        application.onPush { payload, completion in
            payloads.append(payload)
            completion(.newData)
        }
        let runner = Task { try await application.run() }
        defer { runner.cancel() }
        let paths = { server.requests.map(\.path) }
        // A third connection means the second one, which sent the entry again, was read to its end.
        let streams = { paths().filter { $0.hasPrefix("/v1/events/stream") }.count }
        for _ in 0..<1000 where streams() < 3 || !paths().contains("/v1/apps/mail/complete-push") {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(payloads.all == [#"{"k":1}"#])
        #expect(paths().first == "/v1/events/stream?app=mail")
        #expect(paths().filter { $0 == "/v1/apps/mail/complete-push" }.count == 1)
        #expect(paths().contains("/v1/events/stream?app=mail&since=5"))
    }
}
