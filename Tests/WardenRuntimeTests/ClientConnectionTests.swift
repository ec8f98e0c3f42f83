import Foundation
import Testing
import WardenAPI
import WardenCore

@testable import WardenClient

@Suite struct ClientConnectionTests {
    /// A request carries its method, path, JSON body and length, and the answer's status and body come back.
    @Test func requestSendsBodyAndReadsContentLengthAnswer() async throws {
        let server = try ClientTestServer { _ in
            [ClientTestServer.response(201, #"{"id":7,"remainingMillis":null}"#)]
        }
        defer { server.stop() }
        let connection = WardenConnection(socketPath: server.socketPath)
        let answer = try await connection.request(
            method: "POST", path: "/v1/apps/mail/begin-task", body: Array(#"{"name":"upload"}"#.utf8))
        #expect(answer.status == 201)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"id":7,"remainingMillis":null}"#)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/apps/mail/begin-task")
        #expect(request.body == #"{"name":"upload"}"#)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["content-length"] == "17")
    }

    /// A call and an event stream on a path that is a directory or a regular file fail at once
    /// with a sentence saying what the path is, rather than waiting out the retry window.
    @Test func aPathThatIsNotASocketFailsAtOnceSayingWhatItIs() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-not-a-socket-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/plain"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let clock = ContinuousClock()
        let started = clock.now
        for (path, sentence) in [
            (directory, "The path \"\(directory)\" is a directory, not the daemon's socket."),
            (file, "The path \"\(file)\" is a regular file, not a socket."),
        ] {
            let error = await #expect(throws: WardenClientError.self) {
                _ = try await WardenConnection(socketPath: path).request(method: "GET", path: "/v1/health")
            }
            #expect(error?.message == sentence)
            let streamError = await #expect(throws: WardenClientError.self) {
                for try await _ in WardenConnection(socketPath: path).events(path: "/v1/events/stream") {}
            }
            #expect(streamError?.message == sentence)
        }
        #expect(clock.now - started < .seconds(5))
    }

    /// A chunked answer split across writes is joined into one body.
    @Test func chunkedAnswerIsJoined() async throws {
        let server = try ClientTestServer { _ in
            [
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", "lo\r\n", "6;ext=1\r\n world\r\n",
                "0\r\n\r\n",
            ]
        }
        defer { server.stop() }
        let answer = try await WardenConnection(socketPath: server.socketPath).request(
            method: "GET", path: "/v1/health")
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == "hello world")
    }

    /// An answer cut off before its declared length ends in a protocol error, not a short body.
    @Test func truncatedAnswerIsAnError() async throws {
        let server = try ClientTestServer { _ in ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"] }
        defer { server.stop() }
        let error = await #expect(throws: WardenClientError.self) {
            _ = try await WardenConnection(socketPath: server.socketPath, retry: .once).request(
                method: "GET", path: "/v1/apps")
        }
        #expect(error?.code == .protocolViolation)
        #expect(server.requests.count == 1)
    }

    /// A blocking call (a command-line tool's one call) answers as the same call made with
    /// `await` does: the decoded reply, a refusal with the daemon's sentence, a cut-off answer as a
    /// protocol error, and a missing socket named, each tried once.
    @Test func aBlockingCallAnswersAsTheAwaitedCallDoes() async throws {
        let apps =
            #"[{"name":"mail","state":"suspended","status":"background","pids":[7],"footprintBytes":5,"#
            + #""openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":true}]"#
        let server = try ClientTestServer { request in
            switch request.path {
            case "/v1/apps": [ClientTestServer.response(200, apps)]
            case "/v1/apps/cut": ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"]
            default: [ClientTestServer.response(404, #"{"error":"notFound","message":"No app named \"x\"."}"#)]
            }
        }
        defer { server.stop() }
        let connection = WardenConnection(socketPath: server.socketPath, retry: .once)
        let blocking = try connection.callBlocking(ControlAPI.apps)
        #expect(blocking == (try await connection.call(ControlAPI.apps)))
        #expect(blocking.first?.pids == [7])
        // The answer as sent, keys in the daemon's order, beside the reply read from it.
        let kept = try connection.callBlockingKeepingAnswer(ControlAPI.apps)
        #expect(kept.reply == blocking)
        #expect(kept.answer == Array(apps.utf8))

        let refusal = #expect(throws: WardenClientError.self) { _ = try connection.callBlocking(ControlAPI.app, ["x"]) }
        #expect(refusal?.code == .refused)
        #expect(refusal?.status == 404)
        #expect(refusal?.reason == "notFound")
        #expect(refusal?.message == #"No app named "x"."#)

        let requestsBefore = server.requests.count
        let cut = #expect(throws: WardenClientError.self) { _ = try connection.callBlocking(ControlAPI.app, ["cut"]) }
        #expect(cut?.code == .protocolViolation)
        #expect(server.requests.count == requestsBefore + 1)

        let path = NSTemporaryDirectory() + "appwarden-missing-\(UUID().uuidString.prefix(8)).sock"
        let missing = WardenConnection(socketPath: path, retry: .once)
        let absent = #expect(throws: WardenClientError.self) { _ = try missing.callBlocking(ControlAPI.apps) }
        let awaited = await #expect(throws: WardenClientError.self) { _ = try await missing.call(ControlAPI.apps) }
        #expect(absent?.code == .connection)
        #expect(absent?.message.contains(path) == true)
        #expect(absent?.message == awaited?.message)
    }

    /// A daemon that accepts a call and then says nothing fails it once the answer's time limit
    /// passes, naming the call and the socket, without sending it again; a call that changes
    /// something says it may or may not have taken effect. The blocking call does the same.
    @Test func aSilentDaemonFailsTheCallAfterTheAnswerTimeout() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try ClientTestServer { _ in
            release.wait()
            return []
        }
        defer {
            for _ in 0..<3 { release.signal() }
            server.stop()
        }
        let connection = WardenConnection(socketPath: server.socketPath, answerTimeout: .milliseconds(200))
        let read = await #expect(throws: WardenClientError.self) {
            _ = try await connection.request(method: "GET", path: "/v1/apps")
        }
        #expect(read?.code == .connection)
        #expect(read?.message.hasPrefix("The daemon did not answer GET /v1/apps: ") == true)
        #expect(read?.message.contains("\(server.socketPath)\" for 0.2s.") == true)
        #expect(read?.message.contains("may or may not") == false)
        #expect(server.requests.count == 1)

        let verb = await #expect(throws: WardenClientError.self) {
            _ = try await connection.request(method: "POST", path: "/v1/open/mail")
        }
        #expect(verb?.message.contains("may or may not have taken effect") == true)
        #expect(server.requests.count == 2)

        let blocking = #expect(throws: WardenClientError.self) {
            _ = try connection.requestBlocking(method: "GET", path: "/v1/apps")
        }
        #expect(blocking?.message == read?.message)
        #expect(server.requests.count == 3)
    }

    /// A GET cut off every time is tried again within the call window, then fails naming the
    /// window and the cut.
    @Test func truncatedAnswerIsTriedAgainWithinTheWindow() async throws {
        let server = try ClientTestServer { _ in ["HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"] }
        defer { server.stop() }
        let retry = WardenConnection.RetryPolicy(callWindow: .milliseconds(500))
        let error = await #expect(throws: WardenClientError.self) {
            _ = try await WardenConnection(socketPath: server.socketPath, retry: retry).request(
                method: "GET", path: "/v1/apps")
        }
        #expect(error?.code == .protocolViolation)
        #expect(error?.message.contains("within 0.5s") == true)
        #expect(server.requests.count >= 2)
    }

    /// Connecting to a socket that does not exist names the socket, and says how long it was tried.
    @Test func missingSocketIsNamed() async throws {
        let path = NSTemporaryDirectory() + "appwarden-missing-\(UUID().uuidString.prefix(8)).sock"
        let retry = WardenConnection.RetryPolicy(callWindow: .milliseconds(300))
        let error = await #expect(throws: WardenClientError.self) {
            _ = try await WardenConnection(socketPath: path, retry: retry).request(method: "GET", path: "/v1/health")
        }
        #expect(error?.code == .connection)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("tried for 0.3s") == true)
    }

    /// The event stream yields each journal entry of the SSE body, even when events and lines are split across chunks.
    @Test func streamYieldsEntriesAcrossChunks() async throws {
        let first =
            #"{"id":1,"app":"mail","wallTimeMillis":5,"kind":"message","name":"fetchStart","properties":{"window_ms":"30000"}}"#
        let second = #"{"id":2,"app":"mail","wallTimeMillis":6,"kind":"status","name":"background","properties":{}}"#
        let body = ": hello\n\nid: 1\ndata: \(first)\n\nid: 2\r\ndata: \(second)\r\n\r\n"
        let bytes = Array(body.utf8)
        let cut = bytes.count / 3
        let pieces = [Array(bytes[..<cut]), Array(bytes[cut..<(2 * cut)]), Array(bytes[(2 * cut)...])].map {
            String(format: "%x\r\n", $0.count) + String(decoding: $0, as: UTF8.self) + "\r\n"
        }
        let server = try ClientTestServer { _ in
            ["HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"] + pieces
                + ["0\r\n\r\n"]
        }
        defer { server.stop() }
        var entries: [JournalEntry] = []
        for try await entry in WardenConnection(socketPath: server.socketPath).stream(
            path: "/v1/events/stream?app=mail")
        {
            entries.append(entry)
        }
        #expect(entries.map(\.id) == [1, 2])
        // Written with an older daemon's snake_case key, read as the typed message.
        #expect(entries[0].event == .message(.fetchStart(window: .seconds(30))))
        #expect(entries[1].name == "background")
        #expect(server.requests.first?.path == "/v1/events/stream?app=mail")
        #expect(server.requests.first?.headers["accept"] == "text/event-stream")
    }

    /// A refused stream fails with the daemon's sentence and status.
    @Test func refusedStreamFailsWithTheSentence() async throws {
        let server = try ClientTestServer { _ in
            [ClientTestServer.response(403, #"{"error":"forbidden","message":"Only maps may read its events."}"#)]
        }
        defer { server.stop() }
        let error = await #expect(throws: WardenClientError.self) {
            for try await _ in WardenConnection(socketPath: server.socketPath).stream(
                path: "/v1/events/stream?app=maps")
            {}
        }
        #expect(error?.status == 403)
        #expect(error?.message == "Only maps may read its events.")
    }

    /// The SSE parser joins data lines, keeps ids and skips comments and empty events.
    @Test func eventParserJoinsDataLines() {
        var parser = ServerSentEventParser()
        var events = parser.feed(Array("id: 9\nevent: entry\ndata: a\ndata:b\n".utf8))
        #expect(events.isEmpty)
        events = parser.feed(Array("\n:comment\n\ndata: c\r".utf8))
        #expect(events == [.init(id: "9", event: "entry", data: "a\nb")])
        events = parser.feed(Array("\n\r\n".utf8))
        #expect(events == [.init(data: "c")])
    }
}
