import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import WardenAPI
import WardenPolicy
import WardenRuntime
import WardenTesting

@testable import WardenClient

/// A daemon that is stopping: its refusal says the call may be retried, and the client retries
/// what is safe to retry.
@Suite struct StoppingDaemonTests {
    static func errorResponse(_ status: Int, retryAfter: Int, _ code: String) -> String {
        let body = #"{"error":"\#(code)","message":"appwarden is stopping."}"#
        return "HTTP/1.1 \(status) X\r\nRetry-After: \(retryAfter)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// Runs `body` with the socket of a control server for a daemon that has stopped.
    static func servingAStoppedDaemon(_ body: (String) async throws -> Void) async throws {
        let policy = try PolicyLoader.parse("[apps.notes]\ncommand = \"/bin/notes\"\n", file: "policy.toml")
        let bed = await WardenTestBed.start(policy: policy)
        defer { bed.removeStateDirectory() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("aw-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/control.sock"
        await bed.daemon.stop()
        try await ControlServerHarness.serve(bed.control, on: socketPath) {
            try await body(socketPath)
        }
    }

    /// A call to a daemon that is stopping is refused with 503, error "unavailable" and a
    /// Retry-After header, not with 409.
    @Test func aStoppingDaemonRefusesACallWith503AndRetryAfter() async throws {
        try await Self.servingAStoppedDaemon { socketPath in
            let url = try #require(URL(httpURLWithSocketPath: socketPath, uri: "/v1/open/notes"))
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(response.status.code == 503)
            #expect(response.headers["Retry-After"] == ["1"])
            let error = try JSONDecoder().decode(APIErrorBody.self, from: Data(String(buffer: body).utf8))
            #expect(error.error == "unavailable")
            #expect(error.message.contains("stopping"))
        }
    }

    /// A read of an app, of the app list, of events (an app's, the device's or all, at once or
    /// as a stream), of the device or of the metrics from a daemon that is stopping is refused as "unavailable", not
    /// answered "no such app", with an empty list, a device at `normal` with no kills, or "no
    /// metrics": the policy still declares its apps (`appwarden logs APP` said "No app named").
    @Test func aStoppingDaemonRefusesReadsOfItsAppsAsUnavailable() async throws {
        try await Self.servingAStoppedDaemon { socketPath in
            for path in [
                "/v1/apps/notes", "/v1/apps", "/v1/events?app=notes", "/v1/events", "/v1/events?app=appwarden",
                "/v1/events/stream", "/v1/events/stream?since=0", "/v1/device", "/metrics",
            ] {
                let url = try #require(URL(httpURLWithSocketPath: socketPath, uri: path))
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(response.status.code == 503, "\(path)")
                let error = try JSONDecoder().decode(APIErrorBody.self, from: Data(String(buffer: body).utf8))
                #expect(error.error == "unavailable", "\(path)")
                #expect(error.message.contains("stopping"), "\(path)")
            }
        }
    }

    /// The command line told that the daemon is stopping exits 3, as when no daemon answers,
    /// with the daemon's sentence; with --json it prints the "unavailable" error.
    @Test(.requiresAppwardenExecutable)
    func theCommandLineExitsWithThreeWhenTheDaemonIsStopping() async throws {
        try await Self.servingAStoppedDaemon { socketPath in
            let environment = ["APPWARDEN_SOCKET": socketPath]
            let plain = try await AppwardenCommandLine.run(["open", "notes"], environment: environment)
            #expect(plain.code == 3)
            #expect(plain.error.contains("stopping"))
            let json = try await AppwardenCommandLine.run(["open", "notes", "--json"], environment: environment)
            #expect(json.code == 3)
            #expect(
                json.output.contains(#""error":"unavailable""#) || json.output.contains(#""error" : "unavailable""#))
        }
    }

    /// `logs APP`, and the other reads of an app the policy declares, told that the daemon is
    /// stopping say so and exit 3, rather than saying the policy has no such app.
    @Test(.requiresAppwardenExecutable)
    func readsOfAnAppSayTheDaemonIsStoppingRatherThanThatTheAppIsUnknown() async throws {
        try await Self.servingAStoppedDaemon { socketPath in
            let environment = ["APPWARDEN_SOCKET": socketPath]
            for command in [
                ["logs", "notes"], ["logs", "notes", "--follow"], ["status", "notes"], ["explain", "notes"],
            ] {
                let result = try await AppwardenCommandLine.run(command, environment: environment)
                #expect(result.code == 3, "\(command): \(result.error)")
                #expect(result.error.contains("stopping"), "\(command): \(result.error)")
                #expect(!result.error.contains("No app named"), "\(command): \(result.error)")
            }
        }
    }

    /// An idempotent call refused with 503 is sent again after the pause and gets the answer
    /// of the daemon that took over.
    @Test func anIdempotentCallRefusedWith503IsSentAgain() async throws {
        let answers = Mutex(0)
        let server = try ClientTestServer { _ in
            let count = answers.withLock {
                $0 += 1
                return $0
            }
            return count == 1
                ? [Self.errorResponse(503, retryAfter: 0, "unavailable")]
                : [ClientTestServer.response(200, #"{"ok":true}"#)]
        }
        defer { server.stop() }
        let answer = try await WardenConnection(socketPath: server.socketPath).request(method: "GET", path: "/v1/apps")
        #expect(answer.status == 200)
        #expect(server.requests.count == 2)
    }

    /// A call that is not idempotent refused with 503 is not sent again: the caller gets the
    /// daemon's refusal, with its code.
    @Test func aCallThatIsNotIdempotentRefusedWith503IsNotSentAgain() async throws {
        let server = try ClientTestServer { _ in [Self.errorResponse(503, retryAfter: 0, "unavailable")] }
        defer { server.stop() }
        let connection = WardenConnection(socketPath: server.socketPath)
        await #expect {
            _ = try await connection.call(
                ControlAPI.beginTask, ["mail"], body: ControlRequests.BeginTask(name: "upload"))
        } throws: { error in
            (error as? WardenClientError)?.status == 503 && (error as? WardenClientError)?.reason == "unavailable"
        }
        #expect(server.requests.count == 1)
    }
}
