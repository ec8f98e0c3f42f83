import Foundation
import NIOHTTP1
import Synchronization
import Testing
import WardenAPI
import WardenCore
import WardenTesting

@testable import WardenClient

/// The client's side of a daemon restart, against a scripted server: streams resume after the
/// last entry, calls wait for a missing socket, and only safe calls are sent twice.
@Suite struct ClientReconnectTests {
    private static func entry(_ id: Int64) -> String {
        #"{"id":\#(id),"app":"mail","wallTimeMillis":\#(id),"kind":"message","name":"memoryWarning","properties":{}}"#
    }

    private static func chunk(_ text: String) -> String {
        String(format: "%x\r\n", text.utf8.count) + text + "\r\n"
    }

    private static let streamHead =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// A stream cut off in the middle of a chunk connects again with `since` and `Last-Event-ID`
    /// set to the last entry it delivered, and an entry the server sends again is not delivered twice.
    @Test func aStreamDroppedMidBodyResumesAfterTheLastEntry() async throws {
        let server = try ClientTestServer.numbered { number in
            if number == 1 {
                // Entry 5 whole, then a chunk that promises 64 bytes and brings a few.
                return [Self.streamHead, Self.chunk("id: 5\ndata: \(Self.entry(5))\n\n"), "40\r\nid: 6\nda"]
            }
            return [
                Self.streamHead, Self.chunk("id: 5\ndata: \(Self.entry(5))\n\n"),
                Self.chunk("id: 6\ndata: \(Self.entry(6))\n\n"), Self.chunk("id: 7\ndata: \(Self.entry(7))\n\n"),
            ]
        }
        defer { server.stop() }
        let changes = Mutex<[WardenConnection.ConnectionChange]>([])
        let stream = WardenConnection(socketPath: server.socketPath).events(path: "/v1/events/stream?app=mail") {
            change in changes.withLock { $0.append(change) }
        }
        var ids: [Int64] = []
        for try await entry in stream {
            ids.append(entry.id)
            if entry.id == 7 { break }
        }
        #expect(ids == [5, 6, 7])
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.path == "/v1/events/stream?app=mail")
        #expect(requests.first?.headers["last-event-id"] == nil)
        #expect(requests.last?.path == "/v1/events/stream?app=mail&since=5")
        #expect(requests.last?.headers["last-event-id"] == "5")
        let seen = changes.withLock { $0 }
        #expect(seen.count == 2)
        if case .lost(let error) = seen.first {
            #expect(error.code == .protocolViolation)
        } else {
            Issue.record("The first change was not a loss: \(seen)")
        }
        #expect(seen.last == .restored(resumingAfter: 5))
    }

    /// A stream that started from an id resumes from that id when the daemon goes away before
    /// sending anything.
    @Test func aStreamResumesFromItsStartingIDWhenNothingArrived() async throws {
        let server = try ClientTestServer.numbered { number in
            return number == 1
                ? [Self.streamHead] : [Self.streamHead, Self.chunk("id: 13\ndata: \(Self.entry(13))\n\n")]
        }
        defer { server.stop() }
        let stream = WardenConnection(socketPath: server.socketPath).events(path: "/v1/events/stream", since: 12)
        var ids: [Int64] = []
        for try await entry in stream {
            ids.append(entry.id)
            break
        }
        #expect(ids == [13])
        #expect(server.requests.map(\.path) == ["/v1/events/stream?since=12", "/v1/events/stream?since=12"])
    }

    /// A stream whose first connection meets a daemon that is stopping (503) waits for the one that
    /// takes over as a connected stream waits, past the first connection's call window, and
    /// delivers its entries once it answers.
    @Test func aStreamThatMetAStoppingDaemonWaitsPastTheCallWindow() async throws {
        let server = try ClientTestServer.numbered { number in
            if number <= 6 { return [StoppingDaemonTests.errorResponse(503, retryAfter: 1, "unavailable")] }
            return [Self.streamHead, Self.chunk("id: 8\ndata: \(Self.entry(8))\n\n")]
        }
        defer { server.stop() }
        let retry = WardenConnection.RetryPolicy(
            initialDelay: .milliseconds(10), maximumDelay: .milliseconds(20), callWindow: .milliseconds(20))
        let stream = WardenConnection(socketPath: server.socketPath, retry: retry)
            .events(path: "/v1/events/stream?app=mail")
        var ids: [Int64] = []
        for try await entry in stream {
            ids.append(entry.id)
            break
        }
        #expect(ids == [8])
        #expect(server.requests.count == 7)
    }

    /// A refused stream is not tried again: the refusal ends it with the daemon's sentence.
    @Test func aRefusedStreamIsNotTriedAgain() async throws {
        let server = try ClientTestServer { _ in
            [ClientTestServer.response(404, #"{"error":"notFound","message":"No app named \"mail\"."}"#)]
        }
        defer { server.stop() }
        let error = await #expect(throws: WardenClientError.self) {
            for try await _ in WardenConnection(socketPath: server.socketPath).events(
                path: "/v1/events/stream?app=mail")
            {}
        }
        #expect(error?.status == 404)
        #expect(error?.message == #"No app named "mail"."#)
        #expect(server.requests.count == 1)
    }

    /// The control server takes the `Last-Event-ID` header as the resume point when no `since`
    /// is given, and refuses one that is not an id.
    @Test func theServerResumesAfterTheLastEventIDHeader() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.double.perform(.open(app: "mail"))
            _ = try await harness.double.perform(.home)
            let stored = try await harness.double.journal(JournalQuery(app: "mail"))
            try #require(stored.count >= 2)
            let connection = WardenConnection(socketPath: harness.socketPath)
            var ids: [Int64] = []
            for try await item in connection.connectOnce(path: "/v1/events/stream?app=mail", lastEventID: stored[0].id)
            {
                if case .entry(let entry) = item { ids.append(entry.id) }
                if ids.count == stored.count - 1 { break }
            }
            #expect(ids == stored.dropFirst().map(\.id))
            let refused = try await harness.request(
                .GET, "/v1/events/stream?app=mail", headers: [("Last-Event-ID", "soon")])
            #expect(refused.status == 400)
            #expect(refused.body.contains("Last-Event-ID"))
        }
    }

    /// A call made while the socket is missing waits for the daemon and is answered once it listens.
    @Test func aCallWaitsForTheSocketToAppear() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-client-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let connection = WardenConnection(
            socketPath: directory + "/warden.sock", retry: WardenConnection.RetryPolicy(callWindow: .seconds(20)))
        async let answer = connection.request(method: "POST", path: "/v1/apps/mail/begin-task", body: Array("{}".utf8))
        try await Task.sleep(for: .milliseconds(300))
        let server = try ClientTestServer(directory: directory) { _ in
            [ClientTestServer.response(200, #"{"id":1,"remainingMillis":null}"#)]
        }
        defer { server.stop() }
        let status = try await answer.status
        #expect(status == 200)
        #expect(server.requests.map(\.path) == ["/v1/apps/mail/begin-task"])
    }

    /// A call that is not idempotent is not sent again when the daemon went away after receiving
    /// it; the error says it may or may not have taken effect.
    @Test func aNonIdempotentCallIsNotSentTwice() async throws {
        let server = try ClientTestServer { _ in [] }
        defer { server.stop() }
        let error = await #expect(throws: WardenClientError.self) {
            _ = try await WardenConnection(socketPath: server.socketPath).request(
                method: "POST", path: "/v1/apps/mail/end-task", body: Array(#"{"id":1}"#.utf8))
        }
        #expect(error?.code == .connection)
        #expect(error?.message.contains("may or may not have taken effect") == true)
        #expect(server.requests.count == 1)
    }

    /// An idempotent call is sent again when the daemon went away before answering it.
    @Test func anIdempotentCallIsSentAgain() async throws {
        let server = try ClientTestServer.numbered { number in
            return number == 1 ? [] : [ClientTestServer.response(200, #"{"remainingMillis":2000}"#)]
        }
        defer { server.stop() }
        let application = WardenApplication(socketPath: server.socketPath, appName: "mail")
        #expect(try await application.backgroundTimeRemaining == 2)
        #expect(server.requests.map(\.path) == ["/v1/apps/mail/time-remaining", "/v1/apps/mail/time-remaining"])
    }

    /// The pauses double from the first delay up to the maximum, each shortened by at most half.
    @Test func backoffDoublesUpToTheMaximumWithJitter() {
        var backoff = WardenConnection.Backoff(
            WardenConnection.RetryPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400)))
        let bases: [Duration] = [50, 100, 200, 400, 400].map { .milliseconds($0) }
        for base in bases {
            let pause = backoff.next()
            #expect(pause <= base && pause >= base / 2, "\(pause) is not within half of \(base)")
        }
        backoff.reset()
        #expect(backoff.next() <= .milliseconds(50))
    }
}
