import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

/// The command line against a real daemon, as an operator runs it: what `open` says when an
/// app does not stay running, and what `policy check` says about a program it cannot find.
@Suite(.serialized, .timeLimit(.minutes(2)), .requiresRootCgroups, .requiresBallast, .requiresAppwardenExecutable)
struct OperatorCommandLineTests {
    static let policy = """
        [apps.missing]
        command = "/no/such/program"

        [apps.quitter]
        command = "/bin/sh"
        args = ["-c", "exit 3"]

        [apps.steady]
        command = "BALLAST"
        args = ["--hold", "1"]

        [apps.talker]
        command = "/bin/sh"
        args = ["-c", "echo hello from talker; sleep 1; echo still here; exec sleep 60"]
        """

    /// `open` exits 1 and says why when the program does not exist or the process ends at once
    /// (`--json`: the error `launchFailed`; a program that does not exist is journaled as the
    /// termination reason `launchFailed`, not `crashed`); an app that stays up opens with 0.
    @Test func openFailsWithTheReasonWhenTheAppDoesNotStayRunning() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["missing", "quitter", "steady", "talker"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                let socket = ["--socket", harness.options.socketPath]
                let missing = try await AppwardenCommandLine.run(["open", "missing"] + socket)
                #expect(missing.code == 1)
                #expect(missing.error.contains("missing did not stay running"), "\(missing.error)")
                #expect(missing.error.contains("/no/such/program"))
                // A launch that never reached the app's code is not the app's crash.
                #expect(try await daemon.terminationReasons(of: "missing") == ["launchFailed"])
                // The launch that did not start left no group behind.
                let (_, group) = try harness.group(of: "missing")
                #expect(group.allPaths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })

                // A long window: the command ends as soon as the exit is seen.
                let quitter = try await AppwardenCommandLine.run(
                    ["open", "quitter", "--json", "--settle", "60s"] + socket)
                #expect(quitter.code == 1)
                let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(quitter.output.utf8))
                #expect(body.error == "launchFailed")
                #expect(body.message.contains("exited with status 3"), "\(body.message)")

                let steady = try await AppwardenCommandLine.run(["open", "steady", "--json"] + socket)
                #expect(steady.code == 0, "\(steady.output) \(steady.error)")
                #expect(await daemon.stateName(of: "steady") == "active")
            }
        }
    }

    /// `policy check` keeps a policy whose program is missing valid but warns about it, and
    /// `--json` gives the apps, errors and warnings.
    @Test func policyCheckWarnsAboutAMissingProgramAndAnswersJSON() async throws {
        let harness = try DaemonHarness(policy: Self.policy, apps: [])
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        let path = harness.options.policyPath
        let text = try await AppwardenCommandLine.run(["policy", "check", path])
        #expect(text.code == 0)
        #expect(text.output.contains("\(path): valid (4 apps)"))
        #expect(
            text.output.contains(
                "\(path): warning: app \"missing\": The program \"/no/such/program\" does not exist"))
        #expect(!text.output.contains("quitter\": "))

        let json = try await AppwardenCommandLine.run(["policy", "check", "--json", path])
        #expect(json.code == 0)
        let object = try ControlServerHarness.object(json.output)
        #expect(object["valid"] as? Bool == true)
        #expect(object["apps"] as? [String] == ["missing", "quitter", "steady", "talker"])
        #expect((object["warnings"] as? [String])?.count == 1)

        try "[apps.mail]\ncommand = 3\n".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try await AppwardenCommandLine.run(["policy", "check", "--json", path])
        #expect(broken.code == 1)
        let refused = try ControlServerHarness.object(broken.output)
        #expect(refused["valid"] as? Bool == false)
        #expect((refused["errors"] as? [String])?.first?.contains("line 2") == true)
    }

    /// `logs APP` prints the app's output with its timestamps, and `--follow` keeps printing
    /// what the app writes until interrupted; an app the policy does not declare is refused.
    @Test func logsPrintsAndFollowsAnAppsOutput() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["talker"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                let socket = ["--socket", harness.options.socketPath]
                let follow = try AppwardenCommandLine.process(["logs", "talker", "--follow"] + socket)
                let followed = harness.directory + "/followed.txt"
                _ = FileManager.default.createFile(atPath: followed, contents: nil)
                follow.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: followed))
                try follow.run()
                defer {
                    if follow.isRunning { follow.terminate() }
                    follow.waitUntilExit()
                }
                _ = try await daemon.perform(.open(app: "talker"))
                let log = harness.options.logPath(of: "talker")
                #expect(
                    await eventually(within: .seconds(30)) {
                        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("still here")
                    })
                let printed = try await AppwardenCommandLine.run(["logs", "talker"] + socket)
                #expect(printed.code == 0)
                #expect(printed.output.contains("Z hello from talker\n"), "\(printed.output)")
                #expect(
                    await eventually(within: .seconds(30)) {
                        ((try? String(contentsOfFile: followed, encoding: .utf8)) ?? "").contains("Z still here\n")
                    })
                #expect(follow.isRunning)
                let refused = try await AppwardenCommandLine.run(["logs", "ghost"] + socket)
                #expect(refused.code == 1)
                #expect(refused.error.contains("No app named \"ghost\""))
            }
        }
    }
}
