import Foundation
import NIOHTTP1
import Testing
import WardenAPI
import WardenCore

#if canImport(Glibc)
    import Glibc
#endif

/// The `appwarden` executable: `APPWARDEN_EXECUTABLE`, next to the test bundle, or in a build folder.
enum CommandLineHost {
    static let executablePath: String? = {
        if let override = ProcessInfo.processInfo.environment["APPWARDEN_EXECUTABLE"] {
            return access(override, X_OK) == 0 ? override : nil
        }
        var candidates: [String] = []
        if let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = (bundle as NSString).deletingLastPathComponent
            candidates += [folder + "/appwarden", (folder as NSString).deletingLastPathComponent + "/appwarden"]
        }
        let repository =
            (((#filePath as NSString).deletingLastPathComponent as NSString)
            .deletingLastPathComponent as NSString).deletingLastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: repository)) ?? []
        for name in names.sorted() where name.hasPrefix(".build") {
            candidates.append("\(repository)/\(name)/debug/appwarden")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }()

    /// Runs the executable with `arguments` and `environment` added; returns the exit code and outputs.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        code: Int32, output: String, error: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(executablePath))
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["APPWARDEN_SOCKET"] = nil
        merged["APPWARDEN_APP"] = nil
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let code: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        return (
            code, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }
}

@Suite(.enabled(if: CommandLineHost.executablePath != nil, "needs the built appwarden executable"))
struct ControlServerCommandLineTests {
    /// Without a daemon on the socket, a client command exits 3 and names the socket.
    @Test func unreachableDaemonExitsWithThree() async throws {
        let socket = NSTemporaryDirectory() + "appwarden-nobody-\(getpid()).sock"
        let result = try await CommandLineHost.run(["status", "--socket", socket])
        #expect(result.code == 3)
        #expect(result.error.contains(socket))
    }

    /// A usage error exits 2; `app` calls without an app name are usage errors with a sentence.
    @Test func usageErrorsExitWithTwo() async throws {
        #expect(try await CommandLineHost.run(["push"]).code == 2)
        #expect(try await CommandLineHost.run(["events", "--since", "yesterday"]).code == 2)
        let noApp = try await CommandLineHost.run(["app", "ready", "--socket", "/nonexistent.sock"])
        #expect(noApp.code == 2)
        #expect(noApp.error.contains("APPWARDEN_APP"))
    }

    /// Verbs the daemon accepts exit 0; a refusal exits 1 with the daemon's sentence on standard error.
    @Test func refusalExitsWithOneAndPrintsTheSentence() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            #expect(try await CommandLineHost.run(["open", "mail"], environment: environment).code == 0)
            let refused = try await CommandLineHost.run(["open", "ghost"], environment: environment)
            #expect(refused.code == 1)
            #expect(refused.error.contains("No app named \"ghost\""))
            #expect(await harness.double.accepted == [.open(app: "mail")])
        }
    }

    /// `status` prints a table with a row per app, and `--json` the daemon's app list.
    @Test func statusPrintsATableAndJSON() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            _ = try await harness.request(.POST, "/v1/open/maps")
            let table = try await CommandLineHost.run(["status"], environment: environment)
            #expect(table.code == 0)
            let lines = table.output.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("APP") == true && lines.first?.contains("NEXT WAKE") == true)
            #expect(lines.contains { $0.hasPrefix("maps ") && $0.contains("foreground") })
            #expect(lines.contains { $0.hasPrefix("mail ") && $0.contains("notRunning") })
            let json = try await CommandLineHost.run(["status", "--json"], environment: environment)
            let apps = try JSONDecoder().decode([AppInfo].self, from: Data(json.output.utf8))
            #expect(apps.map(\.name) == ["mail", "maps"])
        }
    }

    /// `app begin-task` from a script prints the task id, and `app end-task` ends that task.
    @Test func appCallsFromAScriptUseTheEnvironment() async throws {
        try await ControlServerHarness.run { harness in
            _ = try await harness.request(.POST, "/v1/open/mail")
            let environment = ["APPWARDEN_SOCKET": harness.socketPath, "APPWARDEN_APP": "mail"]
            let begun = try await CommandLineHost.run(["app", "begin-task", "sync"], environment: environment)
            #expect(begun.code == 0)
            let id = try #require(Int(begun.output.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(await harness.double.app(named: "mail")?.openTasks.map(\.id) == [id])
            let ended = try await CommandLineHost.run(["app", "end-task", "\(id)"], environment: environment)
            #expect(ended.code == 0)
            #expect(await harness.double.app(named: "mail")?.openTasks.isEmpty == true)
        }
    }

    /// `push` sends the payload as given and prints what became of it.
    @Test func pushPrintsTheDisposition() async throws {
        try await ControlServerHarness.run { harness in
            let environment = ["APPWARDEN_SOCKET": harness.socketPath]
            let result = try await CommandLineHost.run(
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
}
