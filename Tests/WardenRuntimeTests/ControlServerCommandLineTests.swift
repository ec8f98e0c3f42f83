import Foundation
import NIOHTTP1
import Testing
import WardenAPI
import WardenCore
import WardenPolicy
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.requiresAppwardenExecutable)
struct ControlServerCommandLineTests {
    /// Without a daemon on the socket, a client command exits 3 and names the socket.
    @Test func unreachableDaemonExitsWithThree() async throws {
        let socket = NSTemporaryDirectory() + "appwarden-nobody-\(getpid()).sock"
        let result = try await AppwardenCommandLine.run(["status", "--socket", socket])
        #expect(result.code == 3)
        #expect(result.error.contains(socket))
    }

    /// `watch` on a socket that does not exist exits 3 at once and says there is no such socket.
    @Test func watchOnAMissingSocketFailsAtOnce() async throws {
        let socket = NSTemporaryDirectory() + "appwarden-no-such-\(getpid()).sock"
        let result = try await AppwardenCommandLine.run(["watch", "--socket", socket])
        #expect(result.code == 3)
        #expect(result.error.contains(socket) && result.error.contains("no such socket file"), "\(result.error)")
    }

    /// Every client command given a `--socket` that is a directory or a regular file exits 3 at
    /// once with a sentence saying what the path is, not "Connection refused"; `watch` does not
    /// wait for a daemon there.
    @Test func aSocketPathThatIsADirectoryOrAFileIsNamedAsSuchAtOnce() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-not-a-socket-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/plain"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let commands: [[String]] = [
            ["status"], ["status", "--json"], ["open", "mail"], ["home"], ["events"], ["explain", "mail"],
            ["logs", "mail"], ["policy", "reload"], ["watch"], ["app", "time-remaining"],
        ]
        for (path, sentence) in [
            (directory, "is a directory, not the daemon's socket."),
            (file, "is a regular file, not a socket."),
        ] {
            for command in commands {
                let clock = ContinuousClock()
                let started = clock.now
                let result = try await AppwardenCommandLine.run(
                    command + ["--socket", path], environment: ["APPWARDEN_APP": "mail"])
                let said = result.output + result.error
                #expect(result.code == 3, "\(command): \(said)")
                #expect(said.contains(sentence) && said.contains(path), "\(command): \(said)")
                #expect(!said.contains("Connection refused"), "\(command): \(said)")
                #expect(clock.now - started < .seconds(5), "\(command) waited")
            }
        }
    }

    /// `policy reload` gives the warning `policy check` gives for an app whose program cannot be
    /// found, and names a `[hooks]` command the policy before it did not run; a reload that adds
    /// nothing new warns of nothing.
    @Test func policyReloadWarnsAsPolicyCheckDoesAndOfNewHooks() async throws {
        let policy = try PolicyLoader.parse("[apps.notes]\ncommand = \"/bin/sh\"\n", file: "policy.toml")
        let directory = NSTemporaryDirectory() + "appwarden-reload-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/policy.toml"
        let bed = await WardenTestBed.start(policy: policy, configure: { $0.policyPath = path })
        defer { bed.removeStateDirectory() }
        let socket = directory + "/control.sock"
        try """
        [hooks]
        on_kill = "/usr/local/bin/notify-kill"

        [apps.notes]
        command = "/bin/sh"

        [apps.missing]
        command = "/no/such/program"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        try await ControlServerHarness.serve(bed.control, on: socket) {
            let check = try await AppwardenCommandLine.run(["policy", "check", path])
            let missing = "warning: app \"missing\": The program \"/no/such/program\" does not exist"
            #expect(check.output.contains(missing), "\(check.output)")
            let reload = try await AppwardenCommandLine.run(["policy", "reload", "--socket", socket])
            #expect(reload.code == 0, "\(reload.error)")
            #expect(reload.output.contains("Reloaded the policy \"\(path)\": 2 apps."), "\(reload.output)")
            #expect(reload.output.contains(missing), "\(reload.output)")
            #expect(
                reload.output.contains(
                    "warning: [hooks] on_kill is new: the daemon now runs \"/usr/local/bin/notify-kill\" with "
                        + "/bin/sh as its own user after each kill."), "\(reload.output)")
            let json = try await AppwardenCommandLine.run(["policy", "reload", "--json", "--socket", socket])
            let object = try ControlServerHarness.object(json.output)
            // The hook is in force now; the program is still missing.
            #expect((object["warnings"] as? [String])?.count == 1, "\(json.output)")
        }
        await bed.stop()
    }

    /// A usage error exits 2; `app` calls without an app name are usage errors with a sentence.
    @Test func usageErrorsExitWithTwo() async throws {
        #expect(try await AppwardenCommandLine.run(["push"]).code == 2)
        #expect(try await AppwardenCommandLine.run(["events", "--since", "yesterday"]).code == 2)
        let noApp = try await AppwardenCommandLine.run(["app", "ready", "--socket", "/nonexistent.sock"])
        #expect(noApp.code == 2)
        #expect(noApp.error.contains("APPWARDEN_APP"))
    }

    /// `events --limit` above what the daemon answers at once is refused with the largest allowed,
    /// not cut to it without a word; the largest is accepted.
    @Test func anEventLimitAboveTheDaemonsLargestAnswerIsRefused() async throws {
        let tooMany = try await AppwardenCommandLine.run(["events", "--limit", "100001"])
        #expect(tooMany.code == 2)
        #expect(tooMany.error.contains("at most 100000") && tooMany.error.contains("100001"), "\(tooMany.error)")
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            _ = try await AppwardenCommandLine.run(["open", "mail"], environment: environment)
            let largest = try await AppwardenCommandLine.run(["events", "--limit", "100000"], environment: environment)
            #expect(largest.code == 0, "\(largest.error)")
            #expect(largest.output.contains("mail"))
            #expect(largest.error.isEmpty, "\(largest.error)")
        }
    }

    /// Verbs the daemon accepts exit 0; a refusal exits 1 with the daemon's sentence on standard error.
    @Test func refusalExitsWithOneAndPrintsTheSentence() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            #expect(try await AppwardenCommandLine.run(["open", "mail"], environment: environment).code == 0)
            let refused = try await AppwardenCommandLine.run(["open", "ghost"], environment: environment)
            #expect(refused.code == 1)
            #expect(refused.error.contains("No app named \"ghost\""))
            #expect(await harness.double.accepted == [.open(app: "mail")])
            #expect(try await AppwardenCommandLine.run(["home"], environment: environment).code == 0)
            let quit = try await AppwardenCommandLine.run(["force-quit", "ghost", "--json"], environment: environment)
            #expect(quit.code == 1 && quit.output.contains("No app named"), "\(quit)")
            #expect(await harness.double.accepted == [.open(app: "mail"), .home])
        }
    }

    /// `status` prints a table with a row per app, and `--json` the daemon's app list as the
    /// daemon wrote it, which is the JSON the command line prints (keys sorted, one line).
    @Test func statusPrintsATableAndJSON() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            _ = try await harness.request(.POST, "/v1/open/maps")
            let table = try await AppwardenCommandLine.run(["status"], environment: environment)
            #expect(table.code == 0)
            let lines = table.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("APP") == true && lines.first?.contains("NEXT WAKE") == true)
            #expect(lines.contains { $0.hasPrefix("maps ") && $0.contains("foreground") })
            #expect(lines.contains { $0.hasPrefix("mail ") && $0.contains("notRunning") })
            let json = try await AppwardenCommandLine.run(["status", "--json"], environment: environment)
            let apps = try JSONDecoder().decode([AppInfo].self, from: Data(json.output.utf8))
            #expect(apps.map(\.name) == ["mail", "maps"])
            #expect(json.output == (try await harness.request(.GET, "/v1/apps")).body + "\n")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(json.output == String(decoding: try encoder.encode(apps), as: UTF8.self) + "\n")
            let one = try await AppwardenCommandLine.run(["status", "--json", "maps"], environment: environment)
            #expect(one.output == (try await harness.request(.GET, "/v1/apps/maps")).body + "\n")
        }
    }

    /// `status --json` prints the answer as the daemon sent it, once read as an app list: its
    /// order of keys, a member this client does not know, and no second newline after the
    /// daemon's; an answer that is not an app list is refused as before.
    @Test func statusJSONPrintsTheAnswerAsItCame() async throws {
        let app =
            #"{"state":"suspended","name":"mail","status":"background","pids":[7],"footprintBytes":5,"#
            + #""openTasks":[],"heldResources":[],"forceQuit":false,"hasPreservedState":true,"later":{"a":1}}"#
        let server = try ClientTestServer { request in
            switch request.path {
            case "/v1/apps": [ClientTestServer.response(200, "[" + app + "]\n")]
            case "/v1/apps/mail": [ClientTestServer.response(200, app)]
            default: [ClientTestServer.response(200, #"[{"name":"x"}]"#)]
            }
        }
        defer { server.stop() }
        let environment = ["APPWARDEN_SOCKET": server.socketPath]
        let list = try await AppwardenCommandLine.run(["status", "--json"], environment: environment)
        #expect(list.code == 0)
        #expect(list.output == "[" + app + "]\n")
        let one = try await AppwardenCommandLine.run(["status", "mail", "--json"], environment: environment)
        #expect(one.output == app + "\n")
        let table = try await AppwardenCommandLine.run(["status"], environment: environment)
        #expect(table.output.contains("mail ") && table.output.contains("suspended"))
        let broken = try await AppwardenCommandLine.run(["status", "other", "--json"], environment: environment)
        #expect(broken.code != 0)
        #expect(broken.output.contains(#""error""#) && !broken.output.contains(#""name":"x""#))
    }

    /// `app begin-task` from a script prints the task id, and `app end-task` ends that task; ending
    /// it again is refused (exit 1), and a result that is not one is a usage error (exit 2).
    @Test func appCallsFromAScriptUseTheEnvironment() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let environment = ["APPWARDEN_SOCKET": harness.socketPath, "APPWARDEN_APP": "mail"]
            let begun = try await AppwardenCommandLine.run(["app", "begin-task", "sync"], environment: environment)
            #expect(begun.code == 0)
            let id = try #require(Int(begun.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(await harness.double.app(named: "mail")?.openTasks.map(\.id) == [id])
            let ended = try await AppwardenCommandLine.run(["app", "end-task", "\(id)"], environment: environment)
            #expect(ended.code == 0)
            #expect(await harness.double.app(named: "mail")?.openTasks.isEmpty == true)
            // A refusal exits 1 with the daemon's sentence, as JSON with --json; a usage error exits 2.
            let again = try await AppwardenCommandLine.run(["app", "end-task", "\(id)"], environment: environment)
            #expect(again.code == 1 && !again.error.isEmpty, "\(again)")
            let json = try await AppwardenCommandLine.run(
                ["app", "end-task", "\(id)", "--json"], environment: environment)
            #expect(json.code == 1 && json.output.hasPrefix(#"{"error":"#), "\(json)")
            let usage = try await AppwardenCommandLine.run(
                ["app", "complete-fetch", "maybe"], environment: environment)
            #expect(usage.code == 2 && usage.error.contains("maybe"), "\(usage)")
        }
    }

    /// `app begin-activity` prints the activity id, `status` shows the activity, and
    /// `app end-activity` ends it; a mode the app does not declare is refused with the daemon's
    /// sentence (exit 1).
    @Test func activitiesFromAScriptShowInStatus() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let environment = ["APPWARDEN_SOCKET": harness.socketPath, "APPWARDEN_APP": "mail"]
            let begun = try await AppwardenCommandLine.run(
                ["app", "begin-activity", "audio"], environment: environment)
            #expect(begun.code == 0, "\(begun)")
            #expect(begun.output == "1\n")
            #expect(await harness.double.app(named: "mail")?.activities == [ActivityInfo(id: 1, mode: "audio")])
            let table = try await AppwardenCommandLine.run(["status"], environment: environment)
            #expect(table.output.contains("activity 1:audio"), "\(table.output)")
            let refused = try await AppwardenCommandLine.run(
                ["app", "begin-activity", "location"], environment: environment)
            #expect(refused.code == 1 && refused.error.contains("\"location\""), "\(refused)")
            let ended = try await AppwardenCommandLine.run(["app", "end-activity", "1"], environment: environment)
            #expect(ended.code == 0, "\(ended)")
            #expect(await harness.double.app(named: "mail")?.activities.isEmpty == true)
        }
    }

    /// What a running command printed to `output` once it has printed `count` lines, or at `deadline`.
    static func lines(_ count: Int, from output: Pipe, before deadline: ContinuousClock.Instant) async throws -> String
    {
        let descriptor = output.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var text = ""
        while text.filter({ $0 == "\n" }).count < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            var buffer = [UInt8](repeating: 0, count: 65536)
            let got = read(descriptor, &buffer, buffer.count)
            if got > 0 { text += String(decoding: buffer[0..<got], as: UTF8.self) }
        }
        return text
    }

    /// `watch --json` prints each new entry of the live stream as a JSON line, across heartbeats.
    @Test func watchPrintsLiveEntriesAsJSONLines() async throws {
        try await ControlServerHarness.run(heartbeat: .milliseconds(30)) { harness in
            let process = try AppwardenCommandLine.process([
                "watch", "--app", "mail", "--json", "--socket", harness.socketPath,
            ])
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(10)
            while await harness.double.subscriptionCount == 0 && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(100))
            _ = try await harness.request(.POST, "/v1/open/maps")
            _ = try await harness.request(.POST, "/v1/open/mail")
            let expected = try await harness.double.journal(JournalQuery(app: "mail")).map(\.id)
            #expect(!expected.isEmpty)
            let text = try await Self.lines(expected.count, from: output, before: deadline)
            let lines = text.split(separator: "\n").map(String.init)
            let entries = try lines.map { try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8)) }
            #expect(entries.map(\.id) == expected)
            #expect(process.isRunning)
        }
    }

    /// `app events` in an app the daemon launched starts after `$APPWARDEN_EVENTS_SINCE`, so that the
    /// wake that launched it, journaled before the app could connect, is not missed.
    @Test func appEventsReplaysFromTheLaunchsJournalID() async throws {
        try await ControlServerHarness.run(heartbeat: .milliseconds(30)) { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let earlier = try await harness.double.journal(JournalQuery(app: "mail")).map(\.id)
            #expect(!earlier.isEmpty)
            let process = try AppwardenCommandLine.process(
                ["app", "events", "--json"],
                environment: [
                    "APPWARDEN_SOCKET": harness.socketPath, "APPWARDEN_APP": "mail", "APPWARDEN_EVENTS_SINCE": "0",
                ])
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            let text = try await Self.lines(earlier.count, from: output, before: ContinuousClock.now + .seconds(10))
            let entries = try text.split(separator: "\n").map {
                try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8))
            }
            #expect(entries.map(\.id) == earlier, "app events printed: \(text)")
            #expect(process.isRunning)
        }
    }

    /// `push` sends the payload as given and prints what became of it.
    @Test func pushPrintsTheDisposition() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            let result = try await AppwardenCommandLine.run(
                ["push", "mail", #"{"aps":{"content-available":1}}"#, "--id", "n-7"], environment: environment)
            #expect(result.code == 0)
            #expect(
                ["delivered", "coalesced", "pendingLaunch", "notWoken"].contains(
                    result.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(
                await harness.double.accepted == [
                    .push(target: .app("mail"), payload: #"{"aps":{"content-available":1}}"#, id: "n-7")
                ])
        }
    }

    /// `events` prints the newest entries, oldest first, says on standard error when older ones
    /// matched too, and `--kind` keeps only entries of that kind.
    @Test func eventsPrintsTheNewestAndSaysWhenOlderOnesMatched() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            for number in 1...1005 {
                await harness.double.record(app: "mail", .decision("Decision \(number)."))
            }
            await harness.double.record(app: "maps", .system(.screenLocked))
            // A thousand entries are more than a pipe holds: the output goes to a file.
            let file = NSTemporaryDirectory() + "appwarden-events-\(getpid()).json"
            defer { try? FileManager.default.removeItem(atPath: file) }
            _ = FileManager.default.createFile(atPath: file, contents: nil)
            let all = try AppwardenCommandLine.process(["events", "--json"], environment: environment)
            let errors = Pipe()
            all.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            all.standardError = errors
            try all.run()
            all.waitUntilExit()
            #expect(all.terminationStatus == 0)
            let entries = try JSONDecoder().decode(
                [JournalEntry].self, from: try Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(entries.map(\.id) == Array(7...1006))
            let notice = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(notice.contains("older events matched too; these are the newest 1000"))
            let two = try await AppwardenCommandLine.run(["events", "--limit", "2"], environment: environment)
            #expect(
                two.output.split(separator: "\n").map { $0.contains("#1005") || $0.contains("#1006") } == [true, true])
            #expect(two.error.contains("the newest 2"))
            let system = try await AppwardenCommandLine.run(
                ["events", "--kind", "system", "--json"], environment: environment)
            let systemEntries = try JSONDecoder().decode([JournalEntry].self, from: Data(system.output.utf8))
            #expect(systemEntries.map(\.id) == [1006])
            #expect(system.error.isEmpty)
            let wrong = try await AppwardenCommandLine.run(["events", "--kind", "nonsense"], environment: environment)
            #expect(wrong.code == 2)
            #expect(wrong.error.contains("--kind must be one of"))
            let (status, body) = try await harness.request(.GET, "/v1/events?kind=nonsense")
            #expect(status == 400)
            #expect(try ControlServerHarness.error(body).message.contains("\"kind\" must be one of"))
        }
    }

    /// `export` and `top` fail as every client command does: a sentence on standard error, or
    /// with `--json` the error as an object on standard output, with the same exit status.
    @Test func exportAndTopFailuresAreJSONWithJSON() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-export-fail-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let noJournal = try await AppwardenCommandLine.run(["export", "--state-dir", directory])
        #expect(noJournal.code == 1 && noJournal.output.isEmpty)
        #expect(noJournal.error.contains("holds no journal"), "\(noJournal)")
        let noJournalJSON = try await AppwardenCommandLine.run(["export", "--state-dir", directory, "--json"])
        #expect(noJournalJSON.code == 1 && noJournalJSON.error.isEmpty, "\(noJournalJSON)")
        let noJournalBody = try JSONDecoder().decode(APIErrorBody.self, from: Data(noJournalJSON.output.utf8))
        #expect(noJournalBody.error == "notFound" && noJournalBody.message.contains("holds no journal"))

        try JournalStore(path: directory + "/appwarden.sqlite").close()
        let empty = try await AppwardenCommandLine.run(["export", "--state-dir", directory, "--json"])
        #expect(empty.code == 1 && empty.error.isEmpty, "\(empty)")
        let emptyBody = try JSONDecoder().decode(APIErrorBody.self, from: Data(empty.output.utf8))
        #expect(emptyBody.error == "notFound" && emptyBody.message.contains("no entries to export"), "\(emptyBody)")

        let top = try await AppwardenCommandLine.run(["top", "--json"])
        #expect(top.code == 2 && top.error.isEmpty, "\(top)")
        let topBody = try JSONDecoder().decode(APIErrorBody.self, from: Data(top.output.utf8))
        #expect(topBody.error == "usage" && topBody.message.contains("needs a terminal"), "\(topBody)")
        let topText = try await AppwardenCommandLine.run(["top"])
        #expect(topText.code == 2 && topText.output.isEmpty)
        #expect(topText.error.hasPrefix("appwarden: top needs a terminal"), "\(topText)")
    }
}
