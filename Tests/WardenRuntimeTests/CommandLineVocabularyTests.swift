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

/// The command line speaks the API's one vocabulary: JSON everywhere with `--json`, the same
/// refusals as every verb, the newest entries, exact times.
@Suite(.requiresAppwardenExecutable)
struct CommandLineVocabularyTests {
    /// A trace longer than a pipe holds (64 KiB) is printed whole: a scenario of 4,000 steps
    /// replays to the end, every step in its trace.
    @Test func aLongTraceIsPrintedWhole() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-long-trace-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let steps = (0..<2000).map { #""\#($0 * 2)s open mail", "\#($0 * 2 + 1)s home""# }
        let scenario = """
            [scenario]
            name = "a long day"
            steps = [\(steps.joined(separator: ", "))]

            [apps.mail]
            footprint = "10MiB"
            """
        try scenario.write(toFile: directory + "/long.toml", atomically: true, encoding: .utf8)
        let result = try await AppwardenCommandLine.run(["simulate", directory + "/long.toml"])
        #expect(result.code == 0, "\(result.error)")
        #expect(result.output.utf8.count > 64 << 10)
        #expect(result.output.contains("1h6m39s  ▸ home"))
    }

    /// With `--json`, a refusal, a usage error and an absent daemon are JSON error bodies.
    @Test func everyFailureIsJSONWithJSON() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            let refused = try await AppwardenCommandLine.run(["open", "ghost", "--json"], environment: environment)
            #expect(refused.code == 1)
            let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(refused.output.utf8))
            #expect(body == APIErrorBody(error: "notFound", message: LifecycleError.unknownApp("ghost").message))
        }
        let socket = NSTemporaryDirectory() + "appwarden-nobody-json-\(getpid()).sock"
        let unreachable = try await AppwardenCommandLine.run(["status", "--json", "--socket", socket])
        #expect(unreachable.code == 3)
        #expect(try JSONDecoder().decode(APIErrorBody.self, from: Data(unreachable.output.utf8)).error == "unreachable")
        let usage = try await AppwardenCommandLine.run(["events", "--since", "yesterday", "--json"])
        #expect(usage.code == 2)
        #expect(try JSONDecoder().decode(APIErrorBody.self, from: Data(usage.output.utf8)).error == "usage")
    }

    /// `events --app` refuses an app the policy does not declare with the sentence every verb gives.
    @Test func eventsOfAnUnknownAppAreRefusedLikeAVerb() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            let events = try await AppwardenCommandLine.run(["events", "--app", "nope"], environment: environment)
            let open = try await AppwardenCommandLine.run(["open", "nope"], environment: environment)
            #expect(events.code == 1 && open.code == 1)
            #expect(events.error == open.error)
            #expect(events.error.contains(#"No app named "nope" is declared in the policy."#))
        }
    }

    /// `events --limit N` prints the newest N entries, oldest first, each at its exact millisecond in UTC.
    @Test func limitGivesTheNewestEntriesWithExactTimes() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            _ = try await harness.request(.POST, "/v1/open/mail")
            _ = try await harness.request(.POST, "/v1/home")
            let all = try await harness.double.journal(JournalQuery(limit: 1000))
            #expect(all.count > 2)
            let result = try await AppwardenCommandLine.run(["events", "--limit", "2"], environment: environment)
            #expect(result.code == 0)
            let lines = result.output.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            let newest = Array(all.suffix(2))
            for (line, entry) in zip(lines, newest) {
                let columns = line.components(separatedBy: "  ")
                #expect(columns[1] == "#\(entry.id)")
                var format = Date.ISO8601FormatStyle()
                format.timeZone = TimeZone(identifier: "UTC") ?? .gmt
                let seconds = Date(timeIntervalSince1970: Double(entry.wallTimeMillis / 1000)).formatted(format)
                let expected = seconds.dropLast() + String(format: ".%03dZ", Int(entry.wallTimeMillis % 1000))
                #expect(columns[0] == expected)
            }
            let json = try await AppwardenCommandLine.run(
                ["events", "--limit", "2", "--json"], environment: environment)
            let entries = try JSONDecoder().decode([JournalEntry].self, from: Data(json.output.utf8))
            #expect(entries == newest)
        }
    }

    /// `push APP -` sends the payload read from standard input without its final newline.
    @Test func payloadFromStandardInputLosesItsFinalNewline() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            let payload = #"{"aps":{"content-available":1}}"#
            let result = try await AppwardenCommandLine.run(
                ["push", "mail", "-"], environment: environment, input: payload + "\n")
            #expect(result.code == 0)
            #expect(await harness.double.accepted == [.push(target: .app("mail"), payload: payload, id: nil)])
        }
    }

    /// `--version` prints the version the daemon reports in its health.
    @Test func versionIsPrinted() async throws {
        let result = try await AppwardenCommandLine.run(["--version"])
        #expect(result.code == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == WardenVersion.current)
    }
}

@Suite struct ControlAPITableTests {
    /// The server answers exactly the routes of the table of calls.
    @Test func serverRoutesAreTheTable() {
        let server = ControlServer(control: ControlServerDouble(apps: []), socketPath: "/unused", adminGroup: nil)
        #expect(server.routes == ControlAPI.routes)
    }

    /// A path fills its parameters in order and percent-encodes them and the query.
    @Test func pathsAreFilledAndEncoded() {
        #expect(ControlAPI.beginTask.path(["my app"]) == "/v1/apps/my%20app/begin-task")
        #expect(ControlAPI.push.path(["mail"], query: [("id", "a/b")]) == "/v1/push/mail?id=a%2Fb")
        #expect(
            ControlAPI.events.path([], query: JournalQuery(app: "mail", limit: 5, newest: true).parameters)
                == "/v1/events?app=mail&limit=5&newest=true")
        #expect(ControlAPI.timeRemaining.idempotent && !ControlAPI.endTask.idempotent)
    }
}
