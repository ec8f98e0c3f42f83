import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Control server over a real Unix socket")
struct ControlServerTests {
    /// The server identifies the caller by SO_PEERCRED: the test process's own pid and uid reach the daemon.
    @Test func callerIsIdentifiedByPeerCredentials() async throws {
        try await ControlServerHarness.run { harness in
            let (status, _) = try await harness.request(.GET, "/v1/health")
            #expect(status == 200)
            let peers = await harness.double.peers
            #expect(peers.last == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
        }
    }

    /// Every answer carries the current time in a `Date` header (IMF-fixdate) and names the
    /// server, though no timer keeps the date's text fresh.
    @Test func answersCarryTheDateAndTheServer() async throws {
        try await ControlServerHarness.run { harness in
            let url = try #require(URL(httpURLWithSocketPath: harness.socketPath, uri: "/v1/health"))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            for attempt in 0..<2 {
                if attempt == 1 { try await Task.sleep(for: .milliseconds(1100)) }
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                #expect(response.headers["Server"] == ["appwarden"])
                let text = try #require(response.headers["Date"].first)
                let date = try #require(formatter.date(from: text), "\(text)")
                #expect(abs(date.timeIntervalSinceNow) < 3, "\(text)")
                #expect(formatter.string(from: date) == text)
            }
        }
    }

    /// An operator's open reaches the core, and the app's detail then shows it in the foreground.
    @Test func openedAppIsShownInTheForeground() async throws {
        try await ControlServerHarness.run { harness in
            let (status, body) = try await harness.request(.POST, "/v1/open/mail")
            #expect(status == 200)
            #expect(try ControlServerHarness.object(body)["ok"] as? Bool == true)
            let (detailStatus, detail) = try await harness.request(.GET, "/v1/apps/mail")
            #expect(detailStatus == 200)
            let info = try JSONDecoder().decode(AppInfo.self, from: Data(detail.utf8))
            #expect([.inactive, .active].contains(info.state))
            #expect(info.status == .foreground)
            #expect(await harness.double.accepted == [.open(app: "mail")])
        }
    }

    /// begin-task answers the new task's id; end-task with an id the app never got is 404 and changes nothing.
    @Test func unknownTaskIDIsNotFound() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (status, body) = try await harness.request(.POST, "/v1/apps/mail/begin-task", body: #"{"name":"sync"}"#)
            #expect(status == 200)
            let begun = try JSONDecoder().decode(ControlReplies.TaskBegun.self, from: Data(body.utf8))
            #expect(begun.id >= 1)
            let (endStatus, endBody) = try await harness.request(
                .POST, "/v1/apps/mail/end-task", body: #"{"id":\#(begun.id + 41)}"#)
            #expect(endStatus == 404)
            #expect(try ControlServerHarness.error(endBody).error == "notFound")
            let info = try #require(await harness.double.app(named: "mail"))
            #expect(info.openTasks.map(\.id) == [begun.id])
        }
    }

    /// A push payload over 4096 bytes is refused with 413 and a sentence giving the size; nothing is accepted.
    @Test func oversizePushIsRefusedWith413() async throws {
        try await ControlServerHarness.run { harness in
            let payload = #"{"aps":{"content-available":1},"pad":""# + String(repeating: "x", count: 5000) + #""}"#
            let (status, body) = try await harness.request(.POST, "/v1/push/mail", body: payload)
            #expect(status == 413)
            let error = try ControlServerHarness.error(body)
            #expect(error.error == "payloadTooLarge")
            #expect(error.message.contains("\(payload.utf8.count)"))
            #expect(await harness.double.accepted.isEmpty)
        }
    }

    /// A body larger than the server reads at all is refused with 413 too.
    @Test func hugeBodyIsRefusedWith413() async throws {
        try await ControlServerHarness.run { harness in
            let (status, body) = try await harness.request(
                .POST, "/v1/apps/mail/begin-task", body: String(repeating: " ", count: 200_000))
            #expect(status == 413)
            #expect(try ControlServerHarness.error(body).error == "payloadTooLarge")
        }
    }

    /// Malformed JSON is 400 with a sentence naming the route; a missing field is named too.
    @Test func malformedJSONIsRefusedWith400() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (status, body) = try await harness.request(.POST, "/v1/apps/mail/begin-task", body: "{name: sync")
            #expect(status == 400)
            let error = try ControlServerHarness.error(body)
            #expect(error.error == "invalid")
            #expect(error.message.contains("/v1/apps/mail/begin-task"))
            let (missingStatus, missingBody) = try await harness.request(
                .POST, "/v1/apps/mail/begin-task", body: #"{"title":"sync"}"#)
            #expect(missingStatus == 400)
            #expect(try ControlServerHarness.error(missingBody).message.contains(#""name""#))
            let (pushStatus, _) = try await harness.request(.POST, "/v1/push/mail", body: "{not json")
            #expect(pushStatus == 400)
            #expect(await harness.double.accepted == [.open(app: "mail")])
        }
    }

    /// A verb naming an app the policy does not declare is 404 and names the app.
    @Test func unknownAppIsNotFound() async throws {
        try await ControlServerHarness.run { harness in
            let (status, body) = try await harness.request(.POST, "/v1/open/ghost")
            #expect(status == 404)
            #expect(try ControlServerHarness.error(body).message.contains("ghost"))
            let (detailStatus, _) = try await harness.request(.GET, "/v1/apps/ghost")
            #expect(detailStatus == 404)
            let (explainStatus, _) = try await harness.request(.GET, "/v1/apps/ghost/explain")
            #expect(explainStatus == 404)
        }
    }

    /// A push to a device token made stale by a reset is 410 `unregistered`; the current token is accepted.
    @Test func staleTokenIsGone() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let (_, tokenBody) = try await harness.request(.POST, "/v1/apps/mail/register-push")
            let old = try JSONDecoder().decode(ControlReplies.DeviceToken.self, from: Data(tokenBody.utf8)).token
            #expect(try await harness.request(.POST, "/v1/reset/mail").status == 200)
            let payload = #"{"aps":{"content-available":1}}"#
            let (status, body) = try await harness.request(.POST, "/v1/push-token/\(old)", body: payload)
            #expect(status == 410)
            #expect(try ControlServerHarness.error(body).error == "unregistered")
            let (_, newBody) = try await harness.request(.POST, "/v1/apps/mail/register-push")
            let new = try JSONDecoder().decode(ControlReplies.DeviceToken.self, from: Data(newBody.utf8)).token
            #expect(new != old)
            let (newStatus, accepted) = try await harness.request(.POST, "/v1/push-token/\(new)", body: payload)
            #expect(newStatus == 200)
            #expect(try ControlServerHarness.object(accepted)["disposition"] != nil)
        }
    }

    /// An app call that the app's state does not allow is 409 and changes nothing.
    @Test func callTheStateDoesNotAllowIsConflict() async throws {
        try await ControlServerHarness.run { harness in
            let (status, body) = try await harness.request(.POST, "/v1/apps/maps/begin-task", body: #"{"name":"x"}"#)
            #expect(status == 409)
            #expect(try ControlServerHarness.error(body).error == "conflict")
            #expect(await harness.double.accepted.isEmpty)
        }
    }

    /// A process of app "maps" may not make mail's calls, read mail's events or use operator verbs (403 with a sentence).
    @Test func appProcessMayActOnlyForItself() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            await harness.double.setIdentity(.app("maps"))
            let (taskStatus, taskBody) = try await harness.request(.POST, "/v1/apps/mail/end-task", body: #"{"id":1}"#)
            #expect(taskStatus == 403)
            let error = try ControlServerHarness.error(taskBody)
            #expect(error.error == "forbidden")
            #expect(error.message.contains("\"maps\"") && error.message.contains("\"mail\""))
            #expect(try await harness.request(.GET, "/v1/events?app=mail").status == 403)
            #expect(try await harness.request(.GET, "/v1/events/stream?app=mail").status == 403)
            #expect(try await harness.request(.GET, "/v1/apps/mail").status == 403)
            #expect(try await harness.request(.POST, "/v1/home").status == 403)
            #expect(try await harness.request(.POST, "/v1/push/mail", body: "{}").status == 403)
            #expect(await harness.double.accepted == [.open(app: "mail")])
            let (ownStatus, own) = try await harness.request(.GET, "/v1/events")
            #expect(ownStatus == 200)
            let entries = try JSONDecoder().decode([JournalEntry].self, from: Data(own.utf8))
            #expect(entries.allSatisfy { $0.app == "maps" })
            let (listStatus, list) = try await harness.request(.GET, "/v1/apps")
            #expect(listStatus == 200)
            #expect(try JSONDecoder().decode([AppInfo].self, from: Data(list.utf8)).map(\.name) == ["maps"])
        }
    }

    /// A caller the daemon denies gets 403 with the daemon's sentence, even for health.
    @Test func deniedCallerGetsTheDaemonsSentence() async throws {
        try await ControlServerHarness.run { harness in
            await harness.double.setIdentity(.denied("User 1000 is neither root nor in group appwarden."))
            let (status, body) = try await harness.request(.GET, "/v1/health")
            #expect(status == 403)
            #expect(try ControlServerHarness.error(body).message == "User 1000 is neither root nor in group appwarden.")
        }
    }

    /// The event journal filters by app and since-id; a bad limit is 400.
    @Test func eventsAreFilteredByAppAndSince() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            _ = try await harness.request(.POST, "/v1/open/maps")
            let (_, all) = try await harness.request(.GET, "/v1/events")
            let entries = try JSONDecoder().decode([JournalEntry].self, from: Data(all.utf8))
            #expect(Set(entries.map(\.app)) == ["mail", "maps"])
            let (_, mailOnly) = try await harness.request(.GET, "/v1/events?app=mail")
            #expect(
                try JSONDecoder().decode([JournalEntry].self, from: Data(mailOnly.utf8)).allSatisfy { $0.app == "mail" }
            )
            let cut = try #require(entries.first).id
            let (_, later) = try await harness.request(.GET, "/v1/events?since=\(cut)")
            #expect(try JSONDecoder().decode([JournalEntry].self, from: Data(later.utf8)).count == entries.count - 1)
            let (badStatus, badBody) = try await harness.request(.GET, "/v1/events?limit=none")
            #expect(badStatus == 400)
            #expect(try ControlServerHarness.error(badBody).message.contains("limit"))
        }
    }

    /// The live stream delivers a journal entry as a server-sent event with its id and JSON data.
    @Test func streamDeliversNewEntries() async throws {
        try await ControlServerHarness.run { harness in
            guard let url = URL(httpURLWithSocketPath: harness.socketPath, uri: "/v1/events/stream?app=mail") else {
                throw HarnessError(message: "No URL for the socket.")
            }
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
            #expect(response.status.code == 200)
            #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
            while await harness.double.subscriptionCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
            _ = try await harness.request(.POST, "/v1/open/maps")
            _ = try await harness.request(.POST, "/v1/open/mail")
            var text = ""
            for try await buffer in response.body {
                text += String(buffer: buffer)
                if text.contains("\n\ndata: ") || text.hasSuffix("}\n\n") && text.contains("data: ") { break }
            }
            let lines = text.split(separator: "\n").map(String.init)
            let idLine = try #require(lines.first { $0.hasPrefix("id: ") })
            let dataLine = try #require(lines.first { $0.hasPrefix("data: ") })
            let entry = try JSONDecoder().decode(JournalEntry.self, from: Data(dataLine.dropFirst(6).utf8))
            #expect(entry.app == "mail")
            #expect(idLine == "id: \(entry.id)")
        }
    }

    /// A stream opened with `since` first replays the stored entries after that id, in order,
    /// page by page when there are more than `limit`.
    @Test func streamWithSinceReplaysStoredEntries() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            _ = try await harness.request(.POST, "/v1/home")
            let stored = try await harness.double.journal(JournalQuery(app: "mail"))
            #expect(stored.count >= 3)
            let first = try #require(stored.first).id
            guard
                let url = URL(
                    httpURLWithSocketPath: harness.socketPath, uri: "/v1/events/stream?app=mail&since=\(first)&limit=1")
            else { throw HarnessError(message: "No URL for the socket.") }
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
            var text = ""
            for try await buffer in response.body {
                text += String(buffer: buffer)
                if text.components(separatedBy: "\ndata: ").count > stored.count - 1 && text.hasSuffix("\n\n") { break }
            }
            let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
            #expect(ids == stored.dropFirst().map { "\($0.id)" })
        }
    }

    /// With an admin group, the socket belongs to that group.
    @Test(.requiresRoot, .enabled(if: getgrnam("nogroup") != nil, "Needs the group nogroup."))
    func socketBelongsToTheAdminGroup() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aw-group-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = try #require(getgrnam("nogroup")).pointee.gr_gid
        let path = directory + "/control.sock"
        let (listening, signal) = AsyncStream.makeStream(of: Void.self)
        let server = ControlServer(
            control: ControlServerDouble(apps: []), socketPath: path, adminGroup: group, logger: quietLogger,
            onListening: { signal.yield() })
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await server.run() }
            for await _ in listening { break }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.uint32Value == group)
            tasks.cancelAll()
        }
    }

    /// An idle stream sends heartbeats, and a client that went away ends its subscription
    /// without waiting for an event.
    @Test func idleStreamSendsHeartbeatsAndEndsWhenTheClientLeaves() async throws {
        try await ControlServerHarness.run(heartbeat: .milliseconds(50)) { harness in
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(harness.socketPath.utf8)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(connected == 0)
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let request = Array("GET /v1/events/stream?app=mail HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
            #expect(write(descriptor, request, request.count) == request.count)
            var received = ""
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.contains(": heartbeat") {
                let count = read(descriptor, &buffer, buffer.count)
                guard count > 0 else { break }
                received += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            #expect(received.contains(": heartbeat"))
            #expect(await harness.double.subscriptionCount == 1)
            #expect(harness.double.endedSubscriptions.value == 0)
            close(descriptor)
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(5)
            while harness.double.endedSubscriptions.value == 0 && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(harness.double.endedSubscriptions.value == 1)
        }
    }

    /// An unknown route is a JSON 404 naming the route.
    @Test func unknownRouteIsJSONNotFound() async throws {
        try await ControlServerHarness.run { harness in
            let (status, body) = try await harness.request(.GET, "/v1/nothing-here")
            #expect(status == 404)
            #expect(try ControlServerHarness.error(body).message.contains("/v1/nothing-here"))
        }
    }

    /// A known path called with the wrong method is 405 and says which method it answers.
    @Test func wrongMethodIsNotAllowed() async throws {
        try await ControlServerHarness.run { harness in
            let (status, body) = try await harness.request(.GET, "/v1/apps/mail/ready")
            #expect(status == 405)
            let error = try ControlServerHarness.error(body)
            #expect(error.error == "methodNotAllowed")
            #expect(error.message.contains("only POST"))
            #expect(try await harness.request(.POST, "/v1/apps/mail").status == 405)
            #expect(await harness.double.accepted.isEmpty)
        }
    }

    /// The socket is created with mode 0660.
    @Test func socketHasMode0660() async throws {
        try await ControlServerHarness.run { harness in
            let attributes = try FileManager.default.attributesOfItem(atPath: harness.socketPath)
            #expect(attributes[.type] as? FileAttributeType == .typeSocket)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o660)
        }
    }

    /// A stale socket file that nobody listens on is replaced; a path that is not a socket is refused with a sentence.
    @Test func staleSocketIsReplacedAndAFileIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aw-stale-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stale = directory + "/stale.sock"
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(stale.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(descriptor)
        #expect(bound == 0)
        let (listening, signal) = AsyncStream.makeStream(of: Void.self)
        let server = ControlServer(
            control: ControlServerDouble(apps: []), socketPath: stale, adminGroup: nil, onListening: { signal.yield() })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            for await _ in listening { break }
            group.cancelAll()
            try await group.waitForAll()
        }
        let file = directory + "/plain"
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let refused = ControlServer(control: ControlServerDouble(apps: []), socketPath: file, adminGroup: nil)
        await #expect(throws: ControlServerError.self) { try await refused.run() }
        #expect(FileManager.default.fileExists(atPath: file))
    }

    /// A socket path in a missing directory, or too long for a Unix socket, is refused with a sentence naming it.
    @Test func impossibleSocketPathsAreRefused() async throws {
        let missing = "/nonexistent-\(getpid())/control.sock"
        let inMissingDirectory = ControlServer(
            control: ControlServerDouble(apps: []), socketPath: missing, adminGroup: nil)
        let missingError = await #expect(throws: ControlServerError.self) { try await inMissingDirectory.run() }
        #expect(missingError?.message.contains(missing) == true)
        let long = "/tmp/" + String(repeating: "x", count: 200) + ".sock"
        let tooLong = ControlServer(control: ControlServerDouble(apps: []), socketPath: long, adminGroup: nil)
        let longError = await #expect(throws: ControlServerError.self) { try await tooLong.run() }
        #expect(longError?.message.contains("bytes long") == true)
    }

    /// A second server on a socket that is in use refuses to start and leaves the first one serving.
    @Test func liveSocketIsNotTakenOver() async throws {
        try await ControlServerHarness.run { harness in
            let second = ControlServer(
                control: ControlServerDouble(apps: []), socketPath: harness.socketPath, adminGroup: nil)
            await #expect(throws: ControlServerError.self) { try await second.run() }
            let status = try await harness.request(.GET, "/v1/health").status
            #expect(status == 200)
        }
    }

    /// A policy reload that fails is 400 with the loader's sentence.
    @Test func failedReloadIsRefusedWithTheReason() async throws {
        try await ControlServerHarness.run { harness in
            #expect(try await harness.request(.POST, "/v1/policy/reload").status == 200)
            await harness.double.setReloadError(
                HarnessError(message: "Policy \"p.toml\", line 3: key \"x\" is unknown."))
            let (status, body) = try await harness.request(.POST, "/v1/policy/reload")
            #expect(status == 400)
            #expect(try ControlServerHarness.error(body).message.contains("line 3"))
        }
    }
}
