import Foundation
import Testing
import WardenCgroup
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `appwarden serve` as operators run it: started, used through its socket, stopped with SIGTERM.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresBallast, .requiresAppwardenExecutable)
struct DaemonServeTests {
    /// SIGTERM stops the daemon with status 0 and removes the socket while the app keeps
    /// running; the next daemon adopts it, and with --stop-apps-on-exit its SIGTERM stops it.
    @Test func sigtermLeavesAppsRunningForTheNextDaemonUnlessAskedToStopThem() async throws {
        let policy = """
            [apps.steady]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["steady"]) { harness in
            let options = harness.options
            let arguments = [
                "serve", "--policy", options.policyPath, "--socket", options.socketPath, "--state-dir",
                options.stateDirectory, "--cgroup-root", options.cgroupRoot, "--lock-dir", options.lockDirectory,
            ]
            let (driver, group) = try harness.group(of: "steady")

            var launched: [Process] = []
            do {
                let first = try Self.launch(arguments)
                launched.append(first)
                #expect(await eventually { await Self.answers(options.socketPath) })
                let open = try await AppwardenCommandLine.run(["open", "steady", "--socket", options.socketPath])
                #expect(open.code == 0, "open said: \(open.error)")
                #expect(await eventually { !(((try? await driver.processes(in: group)) ?? []).isEmpty) })
                let pids = try await driver.processes(in: group)
                #expect(await Self.stop(first) == 0)
                #expect(!FileManager.default.fileExists(atPath: options.socketPath))
                #expect(try await driver.processes(in: group) == pids)

                let second = try Self.launch(arguments + ["--stop-apps-on-exit"])
                launched.append(second)
                #expect(await eventually { await Self.answers(options.socketPath) })
                let status = try await AppwardenCommandLine.run([
                    "status", "steady", "--json", "--socket", options.socketPath,
                ])
                #expect(status.output.contains("\"active\""), "status said: \(status.output) \(status.error)")
                #expect(try await driver.processes(in: group) == pids)
                #expect(await Self.stop(second) == 0)
                #expect(((try? await driver.processes(in: group)) ?? []).isEmpty)
            } catch {
                for process in launched where process.isRunning {
                    _ = await Self.stop(process)
                }
                throw error
            }
        }
    }

    /// Under systemd's Type=notify the daemon sends READY=1 only once its socket answers,
    /// WATCHDOG=1 at half of WATCHDOG_USEC and STOPPING=1 on SIGTERM; its apps do not inherit
    /// NOTIFY_SOCKET.
    @Test func serveSpeaksSdNotifyReadyWatchdogAndStoppingOnTheNotifySocket() async throws {
        let policy = """
            [apps.steady]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["steady"]) { harness in
            let options = harness.options
            let listener = try NotifySocketListener()
            defer { listener.close() }
            let arguments = [
                "serve", "--policy", options.policyPath, "--socket", options.socketPath, "--state-dir",
                options.stateDirectory, "--cgroup-root", options.cgroupRoot, "--lock-dir", options.lockDirectory,
            ]
            let (driver, group) = try harness.group(of: "steady")
            let daemon = try Self.launch(
                arguments, environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "1000000"])
            defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
            let ready = listener.receive(timeoutMilliseconds: 30_000)
            #expect(
                ready?.hasPrefix("READY=1\nSTATUS=Serving on \(options.socketPath)") == true,
                "got \(ready ?? "nothing")")
            #expect(ready?.contains("MAINPID=\(daemon.processIdentifier)\n") == true)
            #expect(await Self.answers(options.socketPath), "READY=1 came before the socket answered")
            // The killer keeps its pages in RAM, as the peers do.
            let figures = try #require(DaemonMemory.figures(ofProcessDirectory: "/proc/\(daemon.processIdentifier)"))
            #expect(figures.locked > 1 << 20, "locked by the served daemon: \(figures.locked) bytes")
            #expect(figures.locked <= figures.resident, "locked \(figures.locked), resident \(figures.resident)")
            let pings = (0..<3).map { _ in listener.receive(timeoutMilliseconds: 5_000) }
            #expect(pings == ["WATCHDOG=1\n", "WATCHDOG=1\n", "WATCHDOG=1\n"], "got \(pings)")

            let open = try await AppwardenCommandLine.run(["open", "steady", "--socket", options.socketPath])
            #expect(open.code == 0, "open said: \(open.error)")
            #expect(await eventually { !(((try? await driver.processes(in: group)) ?? []).isEmpty) })
            for pid in try await driver.processes(in: group) {
                let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data()
                #expect(!String(decoding: environ, as: UTF8.self).contains("NOTIFY_SOCKET="))
            }

            daemon.terminate()
            let rest = listener.receiveAll(until: { $0.hasPrefix("STOPPING=1") })
            #expect(
                rest.last == "STOPPING=1\nSTATUS=Stopping: saving the state and leaving the apps running.\n",
                "got \(rest)")
            #expect(await Self.stop(daemon) == 0)
        }
    }

    /// Before it locks its memory the served daemon rehearses a kill for memory, the core's
    /// decision and the driver's kill of a process of its own, and leaves nothing of it: no
    /// group, no process, no record.
    @Test func serveRehearsesAKillBeforeLockingItsMemoryAndLeavesNothingOfIt() async throws {
        try await DaemonHarness.run(policy: "[apps.steady]\ncommand = \"BALLAST\"\n", apps: ["steady"]) { harness in
            let options = harness.options
            let logPath = harness.directory + "/serve.log"
            #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
            let daemon = try AppwardenCommandLine.process([
                "serve", "--policy", options.policyPath, "--socket", options.socketPath, "--state-dir",
                options.stateDirectory, "--cgroup-root", options.cgroupRoot, "--lock-dir", options.lockDirectory,
            ])
            daemon.standardOutput = FileHandle.nullDevice
            daemon.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            try daemon.run()
            defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
            #expect(await eventually(within: .seconds(30)) { await Self.answers(options.socketPath) })
            let log = try String(contentsOfFile: logPath, encoding: .utf8)
            let rehearsal = try #require(
                log.range(
                    of: "Rehearsed a kill for memory before locking the daemon's memory: the choice of a victim "
                        + "and the kill of a process of its own"),
                "the log: \(log)")
            let locked = try #require(log.range(of: "Memory locked in RAM"), "the log: \(log)")
            #expect(rehearsal.lowerBound < locked.lowerBound)
            // Nothing of it is left: no group in any hierarchy, no record in the journal.
            let (_, probe) = try harness.group(of: KillRehearsal.groupName)
            for path in probe.allPaths {
                #expect(!FileManager.default.fileExists(atPath: path), "left behind: \(path)")
            }
            let events = try await AppwardenCommandLine.run(["events", "--socket", options.socketPath])
            #expect(events.code == 0)
            #expect(!events.output.contains("$AppTerminated"), "events: \(events.output)")
            #expect(await Self.stop(daemon) == 0)
        }
    }

    /// Without `--socket`, `serve` listens where `APPWARDEN_SOCKET` says, as the clients look,
    /// and removes that socket when it stops.
    @Test func serveListensWhereAppwardenSocketSays() async throws {
        try await DaemonHarness.run(policy: "[apps.steady]\ncommand = \"BALLAST\"\n", apps: ["steady"]) { harness in
            let options = harness.options
            let socket = harness.directory + "/from-environment.sock"
            let daemon = try Self.launch(
                [
                    "serve", "--policy", options.policyPath, "--state-dir", options.stateDirectory, "--cgroup-root",
                    options.cgroupRoot, "--lock-dir", options.lockDirectory,
                ], environment: ["APPWARDEN_SOCKET": socket])
            defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
            #expect(await eventually(within: .seconds(30)) { await Self.answers(socket) })
            let status = try await AppwardenCommandLine.run(["status"], environment: ["APPWARDEN_SOCKET": socket])
            #expect(status.code == 0, "status said: \(status.error)")
            #expect(status.output.contains("steady"))
            #expect(await Self.stop(daemon) == 0)
            #expect(!FileManager.default.fileExists(atPath: socket))
        }
    }

    /// Starts the executable with `arguments` and `environment` added, its output discarded.
    static func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = try AppwardenCommandLine.process(arguments, environment: environment)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Whether a daemon answers on the socket.
    static func answers(_ socket: String) async -> Bool {
        guard FileManager.default.fileExists(atPath: socket) else { return false }
        return (try? await AppwardenCommandLine.run(["status", "--socket", socket]).code) == 0
    }

    /// Sends SIGTERM and waits (at most 10 s, then SIGKILL) for the exit status.
    static func stop(_ process: Process) async -> Int32 {
        process.terminate()
        let stopped = await eventually { !process.isRunning }
        if !stopped {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }
}
