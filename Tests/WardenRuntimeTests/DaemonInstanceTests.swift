import Foundation
import NIOHTTP1
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenRuntime
import WardenTesting

#if canImport(Glibc)
    import Glibc
#endif

/// One daemon per device: a second one beside a running daemon is refused and changes nothing.
@Suite(.serialized, .requiresRootCgroups, .requiresBallast)
struct DaemonInstanceTests {
    static let policy = """
        [apps.steady]
        command = "BALLAST"
        args = ["--hold", "1"]
        """

    /// A second in-process daemon with the same state directory, with only the same cgroup root,
    /// or with only the same socket is refused with a sentence naming the first one; the first
    /// one's app keeps running and its socket keeps answering.
    @Test func aSecondDaemonBesideARunningOneIsRefusedAndChangesNothing() async throws {
        try await DaemonHarness.run(policy: Self.policy, apps: ["steady"]) { harness in
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "steady"))
            #expect(await eventually { await first.stateName(of: "steady") == "active" })
            let (driver, group) = try harness.group(of: "steady")
            let pids = try await driver.processes(in: group)
            #expect(!pids.isEmpty)
            let socket = harness.options.socketPath

            try await ControlServerHarness.serve(first.control, on: socket) {
                var sameState = harness.options
                sameState.socketPath = harness.directory + "/other.sock"
                var sameRoot = harness.options
                sameRoot.stateDirectory = harness.directory + "/other-state"
                sameRoot.socketPath = harness.directory + "/other.sock"
                var sameSocket = harness.options
                sameSocket.stateDirectory = harness.directory + "/third-state"
                sameSocket.cgroupRoot = TestCgroupName.unique()
                let attempts = [
                    (harness.options, "pid \(getpid())"), (sameState, "pid \(getpid())"),
                    (sameRoot, "pid \(getpid())"),
                    (sameSocket, "The control socket \"\(socket)\" is already answered by "),
                    (sameSocket, "(pid \(getpid())); stop it first"),
                ]
                for (options, sentence) in attempts {
                    do {
                        let second = try await harness.start(options: options)
                        Issue.record("A second daemon started on \(options.stateDirectory), \(options.cgroupRoot)")
                        await second.stop()
                    } catch let error as WardenDaemonError {
                        #expect(error.message.contains(sentence), "refused with: \(error.message)")
                    }
                    #expect(try await driver.processes(in: group) == pids)
                    #expect(await first.stateName(of: "steady") == "active")
                    let answer = try await ControlServerHarness.request(socketPath: socket, .GET, "/v1/apps")
                    #expect(answer.status == 200)
                }
                // The refused daemons wrote no journal, left nothing in their state directories
                // (the one refused for the cgroup root made none) and no lock file of their own.
                for directory in ["/other-state", "/third-state"] {
                    let entries = (try? FileManager.default.contentsOfDirectory(atPath: harness.directory + directory))
                    #expect(entries?.isEmpty ?? true, "\(directory): \(entries ?? [])")
                }
                #expect(!FileManager.default.fileExists(atPath: harness.directory + "/other-state"))
                #expect(
                    (try FileManager.default.contentsOfDirectory(atPath: harness.options.lockDirectory))
                        == ["cgroup-\(harness.options.cgroupRoot).lock"])
                let other = try CgroupDrivers.make(
                    layout: try CgroupLayout.read(), configuration: CgroupConfiguration(rootName: sameSocket.cgroupRoot)
                )
                for path in other.group(named: "probe").allPaths {
                    #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
                }
            }
            await first.stop()
            // Once the first has stopped, the next daemon may start and adopts the app.
            let next = try await harness.start()
            #expect(await next.control.app(named: "steady")?.pids == pids)
            await next.stop()
            // A daemon that stopped leaves no lock file behind.
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: harness.options.lockDirectory)) ?? []).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: harness.options.stateDirectory + "/appwarden.lock"))
        }
    }
}

/// One daemon per device, as operators run it: `appwarden serve` beside a running one.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresBallast, .requiresAppwardenExecutable)
struct DaemonInstanceServeTests {
    /// A second `appwarden serve` with the same socket, state directory and cgroup root, with
    /// another state directory and socket but the same cgroup root, or sharing only the socket,
    /// exits 2 naming the first daemon's pid; the first one's app is not killed and its socket
    /// keeps answering.
    @Test func aSecondServeBesideARunningOneExitsTwoNamingTheFirstsPid() async throws {
        try await DaemonHarness.run(policy: DaemonInstanceTests.policy, apps: ["steady"]) { harness in
            let options = harness.options
            func arguments(state: String, socket: String, root: String? = nil) -> [String] {
                [
                    "serve", "--policy", options.policyPath, "--socket", socket, "--state-dir", state,
                    "--cgroup-root", root ?? options.cgroupRoot, "--lock-dir", options.lockDirectory,
                ]
            }
            let (driver, group) = try harness.group(of: "steady")
            let first = try DaemonServeTests.launch(
                arguments(state: options.stateDirectory, socket: options.socketPath))
            do {
                #expect(await eventually { await DaemonServeTests.answers(options.socketPath) })
                let open = try await AppwardenCommandLine.run(["open", "steady", "--socket", options.socketPath])
                #expect(open.code == 0, "open said: \(open.error)")
                #expect(await eventually { !(((try? await driver.processes(in: group)) ?? []).isEmpty) })
                let pids = try await driver.processes(in: group)

                let attempts = [
                    arguments(state: options.stateDirectory, socket: options.socketPath),
                    arguments(state: harness.directory + "/other-state", socket: harness.directory + "/other.sock"),
                    // Only the socket is shared: no lock is in the way, the socket names the daemon.
                    arguments(
                        state: harness.directory + "/third-state", socket: options.socketPath,
                        root: TestCgroupName.unique()),
                ]
                for attempt in attempts {
                    let second = try await AppwardenCommandLine.run(attempt)
                    #expect(second.code == 2)
                    #expect(second.error.contains("pid \(first.processIdentifier)"), "it said: \(second.error)")
                    #expect(try await driver.processes(in: group) == pids)
                    #expect(await DaemonServeTests.answers(options.socketPath))
                }
                for state in ["/other-state", "/third-state"] {
                    #expect(!FileManager.default.fileExists(atPath: harness.directory + state + "/appwarden.sqlite"))
                }
                #expect(await DaemonServeTests.stop(first) == 0)
                #expect(!FileManager.default.fileExists(atPath: options.socketPath))
            } catch {
                if first.isRunning { _ = await DaemonServeTests.stop(first) }
                throw error
            }
            if first.isRunning { _ = await DaemonServeTests.stop(first) }
        }
    }
}
