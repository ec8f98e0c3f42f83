import Foundation
import Logging
import NIOHTTP1
import Synchronization
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// What an operator sees of a real daemon: its startup and shutdown log, what a policy reload
/// says it changed, and `appwarden top` in a real terminal.
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .requiresRootCgroups, .requiresBallast)
struct OperatorViewTests {
    static let policy = """
        [apps.steady]
        command = "BALLAST"
        args = ["--hold", "1"]
        """

    /// The startup log names the policy's apps, the state directory, the cgroup layout and
    /// placement, the pressure sources armed and the apps re-adopted; a launch names its process
    /// and how long it took; the shutdown log names the apps left running, with their states and
    /// pids.
    @Test func startupAndShutdownLogsSayWhatTheDaemonFoundAndLeft() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["steady"]) { harness in
            let lines = Mutex<[String]>([])
            let logger = Logger(label: "appwarden") { label in
                WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
            }
            let first = try await WardenDaemon.start(options: harness.options, logger: logger)
            var stopped = false
            do {
                _ = try await first.perform(.open(app: "steady"))
                #expect(await eventually { await first.control.app(named: "steady")?.pids.isEmpty == false })
                let pid = try #require(await first.control.app(named: "steady")?.pids.first)
                await first.stop()
                stopped = true
                let shutdown = lines.withLock { $0.joined() }
                #expect(
                    shutdown.contains(
                        "Stopped; left 1 apps running for the next start to re-adopt: steady (active, pid \(pid))."))
                #expect(shutdown.contains("Policy \(harness.options.policyPath): 1 apps (steady)."))
                #expect(shutdown.contains("State directory \(harness.options.stateDirectory)"))
                #expect(shutdown.contains("Cgroup layout \(try CgroupLayout.read().kind.rawValue) "))
                #expect(shutdown.contains(harness.options.cgroupRoot))
                #expect(shutdown.contains("Memory pressure signals: "))
                #expect(shutdown.contains("Re-adopted no apps"))
                // The launch says how long it held the daemon's loop up.
                let launch = try #require(
                    shutdown.firstMatch(
                        of: #/Launched app "steady" \(launch 1, user\) as process (\d+) in (\d+) ms\./#))
                #expect(Int32(launch.output.1) == pid)
                #expect(Int(launch.output.2).map { $0 < 10_000 } == true)

                lines.withLock { $0.removeAll() }
                var options = harness.options
                options.stopAppsOnExit = true
                let second = try await WardenDaemon.start(options: options, logger: logger)
                await second.stop()
                let restart = lines.withLock { $0.joined() }
                #expect(
                    restart.contains("Re-adopted 1 apps left running: steady (active, pid \(pid))."), "log: \(restart)")
                #expect(restart.contains("Stopped; every app was stopped (--stop-apps-on-exit): steady."))
            } catch {
                if !stopped { await first.stop() }
                throw error
            }
        }
    }

    /// A reload that changes a running app's arguments says it keeps its process until its next
    /// launch and journals that; with restarts asked for, the app gets a new process and is
    /// active again.
    @Test func reloadSaysWhatChangedAndRestartsOnlyWhenAsked() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["steady"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            _ = try await daemon.perform(.open(app: "steady"))
            #expect(await eventually { await daemon.control.app(named: "steady")?.pids.isEmpty == false })
            let pid = try #require(await daemon.control.app(named: "steady")?.pids.first)

            let ballast = TestHost.ballastPath ?? "ballast"
            try "[apps.steady]\ncommand = \"\(ballast)\"\nargs = [\"--hold\", \"2\"]\n"
                .write(toFile: harness.options.policyPath, atomically: true, encoding: .utf8)
            let kept = try await daemon.control.reloadPolicy(restartChanged: false)
            #expect(
                kept.changed == [ControlReplies.ChangedApp(name: "steady", keys: ["args"], outcome: "atNextLaunch")])
            #expect(await daemon.control.app(named: "steady")?.pids.first == pid)
            let journal = try await daemon.control.journal(JournalQuery(app: Lifecycle.systemJournalName, limit: 1000))
            #expect(
                journal.contains { ($0.properties["text"] ?? "").hasPrefix("Policy reload: Changed steady (args)") })

            try "[apps.steady]\ncommand = \"\(ballast)\"\nargs = [\"--hold\", \"3\"]\n"
                .write(toFile: harness.options.policyPath, atomically: true, encoding: .utf8)
            let restarted = try await daemon.control.reloadPolicy(restartChanged: true)
            #expect(restarted.changed.first?.outcome == "restarted")
            #expect(
                await eventually {
                    let info = await daemon.control.app(named: "steady")
                    return info?.state == .active && info?.pids.isEmpty == false && info?.pids.contains(pid) == false
                })
            #expect(try await daemon.terminationReasons(of: "steady") == ["policyChanged"])
        }
    }

    /// The last kills (what `top` and `GET /v1/device` show) are still there after a restart.
    @Test func recentKillsAreRememberedAcrossARestart() async throws {
        let policy = """
            [apps.slow]
            command = "BALLAST"
            args = ["--hold", "1"]
            readiness = "notify"
            [apps.slow.launch]
            timeout = "1s"
            """
        try await DaemonHarness.run(policy: policy, apps: ["slow"]) { harness in
            let first = try await harness.start(stopAppsOnExit: true)
            _ = try await first.perform(.open(app: "slow"))
            #expect(try await eventually { try await first.terminationReasons(of: "slow") == ["launchTimeout"] })
            let kills = try await first.control.device().recentKills
            #expect(kills.map(\.app) == ["slow"] && kills.map(\.reason) == ["launchTimeout"])
            await first.stop()
            let second = try await harness.start(stopAppsOnExit: true)
            #expect(try await second.control.device().recentKills == kills)
            await second.stop()
        }
    }

    /// A refused reload is logged and journaled under `appwarden`, and its answer says once that
    /// the running policy stays in force.
    @Test func refusedReloadIsLoggedJournaledAndSaidOnce() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["steady"]) { harness in
            let lines = Mutex<[String]>([])
            let logger = Logger(label: "appwarden") { label in
                WardenLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
            }
            let daemon = try await WardenDaemon.start(options: harness.options, logger: logger)
            do {
                try await ControlServerHarness.serve(daemon.control, on: harness.options.socketPath) {
                    try "[apps.steady]\ncommand = 3\n".write(
                        toFile: harness.options.policyPath, atomically: true, encoding: .utf8)
                    let (status, body) = try await ControlServerHarness.request(
                        socketPath: harness.options.socketPath, .POST, "/v1/policy/reload")
                    #expect(status == 400)
                    let message = try ControlServerHarness.error(body).message
                    #expect(message.components(separatedBy: "stays in force").count == 2, "\(message)")
                    #expect(message.contains("line 2"))
                }
                let journal = try await daemon.control.journal(JournalQuery(app: Lifecycle.systemJournalName))
                #expect(
                    journal.contains {
                        ($0.properties["text"] ?? "").hasPrefix(
                            "Policy reload refused; the running policy stays in force")
                    })
                #expect(lines.withLock { $0.contains { $0.contains("was not reloaded") && $0.contains("line 2") } })
            } catch {
                await daemon.stop()
                throw error
            }
            await daemon.stop()
        }
    }

    /// `appwarden top` in a real terminal (tmux) against a real `appwarden serve`: it shows the
    /// app and the device's memory, quits on q with status 0, and leaves the terminal's settings
    /// as it found them; SIGTERM restores them too.
    @Test(
        .requiresAppwardenExecutable, .requiresExecutable("/usr/bin/tmux"))
    func topShowsTheAppsInARealTerminalAndRestoresItOnQuit() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["steady"]) { harness in
            let options = harness.options
            let daemon = try DaemonServeTests.launch([
                "serve", "--policy", options.policyPath, "--socket", options.socketPath, "--state-dir",
                options.stateDirectory, "--cgroup-root", options.cgroupRoot, "--lock-dir", options.lockDirectory,
                "--stop-apps-on-exit",
            ])
            let tmux = TmuxHost(directory: harness.directory)
            do {
                #expect(await eventually { await DaemonServeTests.answers(options.socketPath) })
                _ = try await AppwardenCommandLine.run(["open", "steady", "--socket", options.socketPath])
                let binary = try #require(TestHost.appwardenPath)
                let dir = harness.directory
                let script =
                    "stty -g > \(dir)/before; TERM=xterm-256color \(binary) top --socket \(options.socketPath); "
                    + "echo top-exit=$?; stty -g > \(dir)/after; sleep 60"
                try await tmux.start(session: "q", script: script)
                #expect(
                    await eventually {
                        let screen = await tmux.capture("q")
                        return screen.contains("steady") && screen.contains("Memory:")
                    })
                let shown = await tmux.capture("q")
                #expect(shown.contains("APP") && shown.contains("active"), "top showed: \(shown)")
                try await tmux.keys("q", "q")
                #expect(await eventually { await tmux.capture("q").contains("top-exit=0") })
                #expect(await eventually { FileManager.default.fileExists(atPath: "\(dir)/after") })
                let before = try String(contentsOfFile: "\(dir)/before", encoding: .utf8)
                #expect(before == (try String(contentsOfFile: "\(dir)/after", encoding: .utf8)))

                let termScript =
                    "stty -g > \(dir)/before2; echo $$ > \(dir)/shell; exec \(binary) top --socket \(options.socketPath)"
                try await tmux.start(session: "t", script: "sh -c '\(termScript)'; stty -g > \(dir)/after2; sleep 60")
                #expect(await eventually { await tmux.capture("t").contains("steady") })
                let topPID = try #require(
                    Int32(
                        try String(contentsOfFile: "\(dir)/shell", encoding: .utf8).trimmingCharacters(
                            in: .whitespacesAndNewlines)))
                kill(topPID, SIGTERM)
                #expect(await eventually { FileManager.default.fileExists(atPath: "\(dir)/after2") })
                let before2 = try String(contentsOfFile: "\(dir)/before2", encoding: .utf8)
                #expect(before2 == (try String(contentsOfFile: "\(dir)/after2", encoding: .utf8)))
            } catch {
                await tmux.stop()
                _ = await DaemonServeTests.stop(daemon)
                throw error
            }
            await tmux.stop()
            #expect(await DaemonServeTests.stop(daemon) == 0)
        }
    }
}

/// A tmux server of the test's own, on a socket in the test's temporary directory, killed by `stop`.
struct TmuxHost {
    let socket: String

    init(directory: String) {
        socket = directory + "/tmux.sock"
    }

    /// Runs a tmux client (`posix_spawn`, its output to /dev/null) and polls `waitpid` until it
    /// has exited. A client that starts the server is not seen to end through `Process`, and
    /// the server takes over a client's descriptors, so no pipe is read either.
    func run(_ arguments: [String], output: String = "/dev/null") async throws {
        var argv: [UnsafeMutablePointer<CChar>?] = (["tmux", "-S", socket] + arguments).map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/tmux", &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A detached 100×30 session running `script` in sh.
    func start(session: String, script: String) async throws {
        try await run(["new-session", "-d", "-s", session, "-x", "100", "-y", "30", script])
    }

    /// The session's screen as text.
    func capture(_ session: String) async -> String {
        let file = socket + ".\(session).txt"
        try? await run(["capture-pane", "-p", "-t", session], output: file)
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    func keys(_ session: String, _ keys: String...) async throws {
        try await run(["send-keys", "-t", session] + keys)
    }

    /// Kills every pane's processes (each pane is a process group of its own), then the server
    /// and, should it outlive `kill-server`, its process.
    func stop() async {
        let panes = socket + ".panes"
        try? await run(["list-panes", "-a", "-F", "#{pane_pid}"], output: panes)
        for line in ((try? String(contentsOfFile: panes, encoding: .utf8)) ?? "").split(separator: "\n") {
            if let pane = Int32(line), pane > 1 { kill(-pane, SIGKILL) }
        }
        let file = socket + ".pid"
        try? await run(["display-message", "-p", "#{pid}"], output: file)
        try? await run(["kill-server"])
        guard
            let pid = Int32(
                (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                    ?? "")
        else { return }
        if !(await eventually(within: .seconds(2)) { kill(pid, 0) != 0 }) {
            kill(pid, SIGKILL)
        }
    }
}
