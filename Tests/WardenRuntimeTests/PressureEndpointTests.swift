import Foundation
import Testing
import WardenAPI
import WardenCgroup
import WardenCore
import WardenTesting

@testable import WardenRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Each app's memory-pressure socket (`MEMORY_PRESSURE_WATCH`), as sd-event and the example app
/// use it.
struct PressureEndpointTests {
    /// A client connected to `path`, its descriptor; nil when it could not connect.
    static func connect(to path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    /// What the client reads next: the text, "" at the end, nil when nothing came within 3 s.
    static func read(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Every connection of the app's socket gets the line at each warning, another app's
    /// connection gets nothing, and closing the endpoint ends the connections and removes the socket.
    @Test func everyConnectionOfTheAppHearsAWarningAndClosingEndsThem() async throws {
        let directory = NSTemporaryDirectory() + "appwarden-pressure-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let endpoints = PressureEndpoints(directory: directory)
        let path = try endpoints.open(app: "mail", owner: nil)
        let other = try endpoints.open(app: "maps", owner: nil)
        #expect(path == directory + "/mail.sock")
        let first = try #require(Self.connect(to: path))
        let second = try #require(Self.connect(to: path))
        let bystander = try #require(Self.connect(to: other))
        defer { for descriptor in [first, second, bystander] { close(descriptor) } }
        #expect(await eventually { endpoints.connectionCount(app: "mail") == 2 })
        #expect(endpoints.warn(app: "mail") == 2)
        #expect(Self.read(first) == "memory-warning\n")
        #expect(Self.read(second) == "memory-warning\n")
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(bystander, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #expect(Self.read(bystander) == nil)
        endpoints.close(app: "mail")
        #expect(Self.read(first) == "")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(endpoints.warn(app: "mail") == 0)
        endpoints.closeAll()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    /// The socket of an app whose name is as long as a policy allows fits a Unix socket path, with
    /// its terminating zero, beside the default control socket.
    @Test func theLongestAppNameGivesASocketPathThatFits() {
        let options = WardenDaemonOptions(policyPath: "/etc/appwarden/policy.toml")
        let endpoints = PressureEndpoints(directory: options.pressureDirectory)
        let path = endpoints.path(of: String(repeating: "a", count: AppPolicy.nameLimit))
        #expect(path.hasPrefix("/run/appwarden-pressure/"))
        #expect(path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path))
    }

    /// A launched app finds its socket in `MEMORY_PRESSURE_WATCH` (with an empty
    /// `MEMORY_PRESSURE_WRITE`), hears the core's memory warning there, and the socket goes when
    /// the process ends.
    @Test func aLaunchedAppHearsTheMemoryWarningOnItsSocket() async throws {
        let bed = await WardenTestBed.start(
            policy: Policy(apps: [AppPolicy(name: "mail", command: "/bin/mail")]))
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.open(app: "mail"))
        let environment = try #require(bed.launcher.launches.last?.request.environment)
        let path = try #require(environment["MEMORY_PRESSURE_WATCH"])
        #expect(environment["MEMORY_PRESSURE_WRITE"] == "")
        let client = try #require(Self.connect(to: path))
        defer { close(client) }
        #expect(await eventually { bed.daemon.workers.pressureEndpoints.connectionCount(app: "mail") == 1 })
        _ = try await bed.daemon.perform(.pressure(.warning))
        let heard = Self.read(client)
        #expect(heard == "memory-warning\n")
        _ = bed.launcher.exit("mail", status: 0)
        await bed.settle()
        #expect(!FileManager.default.fileExists(atPath: path))
        await bed.stop()
    }

    /// The example app, written against systemd's convention and nothing of appwarden's, connects
    /// to its socket when launched and drops its cache at the daemon's memory warning.
    @Test(
        .requiresRootCgroups,
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func theExampleAppDropsItsCacheAtAMemoryWarning() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/MemoryPressure/trim-on-pressure.py").standardized.path
        let policy = """
            [apps.trimmer]
            command = "/usr/bin/python3"
            args = ["\(script)"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["trimmer"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            _ = try await daemon.perform(.open(app: "trimmer"))
            let log = harness.options.logPath(of: "trimmer")
            func logged(_ text: String) async -> Bool {
                await eventually(within: .seconds(10)) {
                    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(text)
                }
            }
            #expect(await logged("watching memory pressure through \(harness.options.pressureDirectory)/trimmer.sock"))
            #expect(await eventually { daemon.workers.pressureEndpoints.connectionCount(app: "trimmer") == 1 })
            _ = try await daemon.perform(.pressure(.warning))
            #expect(await logged("memory pressure: dropped 8 MiB of cache"))
            await daemon.stop()
        }
    }

    /// The example app, whose daemon goes away and leaves its socket file behind (as `kill -9`
    /// does) before a new daemon starts, connects to the same path again and drops its cache at
    /// the new daemon's memory warning.
    @Test(
        .requiresRootCgroups,
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func theExampleAppConnectsAgainAfterADaemonRestartAndHearsTheNextWarning() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/MemoryPressure/trim-on-pressure.py").standardized.path
        let policy = """
            [apps.trimmer]
            command = "/usr/bin/python3"
            args = ["\(script)"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["trimmer"]) { harness in
            let path = harness.options.pressureDirectory + "/trimmer.sock"
            let log = harness.options.logPath(of: "trimmer")
            func count(_ text: String) -> Int {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: text).count - 1
            }
            let watching = "watching memory pressure through \(path)"
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "trimmer"))
            #expect(await eventually(within: .seconds(10)) { count(watching) == 1 })
            #expect(await eventually { first.workers.pressureEndpoints.connectionCount(app: "trimmer") == 1 })
            await first.stop()
            // A daemon killed with SIGKILL leaves its folder and socket file, which nothing listens on.
            try FileManager.default.createDirectory(
                atPath: harness.options.pressureDirectory, withIntermediateDirectories: true)
            let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            close(stale)
            #expect(bound == 0)
            #expect(await eventually(within: .seconds(10)) { count("connecting to it again") == 1 })
            try await Task.sleep(for: .milliseconds(500))
            #expect(count(watching) == 1, "the app connected to a socket nothing listens on")

            let second = try await harness.start(stopAppsOnExit: true)
            #expect(await eventually { second.workers.pressureEndpoints.connectionCount(app: "trimmer") == 1 })
            #expect(await eventually { count(watching) == 2 })
            _ = try await second.perform(.pressure(.warning))
            #expect(await eventually(within: .seconds(10)) { count("memory pressure: dropped 8 MiB of cache") == 1 })
            #expect(count("no longer watching") == 0)
            await second.stop()
        }
    }

    /// The example app given a FIFO reads it again when its writer closes it, and hears the next
    /// writer's event: a daemon that stopped and one that started after it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func theExampleAppReadsAFIFOAgainAfterItsWriterClosedIt() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/MemoryPressure/trim-on-pressure.py").standardized.path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pressure"
        #expect(mkfifo(fifo, 0o600) == 0)
        let output = folder + "/out.txt"
        let pid = try ShellSpawn.start(
            "MEMORY_PRESSURE_WATCH='\(fifo)' CACHE_MIB=1 exec /usr/bin/python3 '\(script)' > '\(output)'",
            descriptors: ShellSpawn.Descriptors(inputFromNull: true))
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        func count(_ text: String) -> Int {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").components(separatedBy: text).count - 1
        }
        func writeEvent() {
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            #expect(writer >= 0)
            _ = write(writer, "w", 1)
            close(writer)
        }
        #expect(await eventually(within: .seconds(10)) { count("watching memory pressure through \(fifo)") == 1 })
        writeEvent()
        #expect(await eventually(within: .seconds(10)) { count("reading it again") == 1 })
        #expect(count("memory pressure: dropped") == 1)
        writeEvent()
        #expect(await eventually(within: .seconds(10)) { count("memory pressure: dropped") == 2 })
        #expect(count("no longer watching") == 0)
    }

    /// A daemon that stops leaves no socket behind, and the next one makes the socket of each app
    /// it re-adopts again at the same path.
    @Test(.requiresRootCgroups, .requiresBallast)
    func aRestartedDaemonMakesTheSocketsOfTheAppsItReadopts() async throws {
        let policy = """
            [apps.idle]
            command = "BALLAST"
            args = ["--hold", "1"]
            """
        try await DaemonHarness.run(policy: policy, apps: ["idle"]) { harness in
            let path = harness.options.pressureDirectory + "/idle.sock"
            let first = try await harness.start()
            _ = try await first.perform(.open(app: "idle"))
            #expect(FileManager.default.fileExists(atPath: path))
            await first.stop()
            #expect(!FileManager.default.fileExists(atPath: path))
            let second = try await harness.start()
            #expect(await second.control.app(named: "idle")?.state.rawValue == "active")
            #expect(FileManager.default.fileExists(atPath: path))
            let client = try #require(Self.connect(to: path))
            defer { close(client) }
            #expect(await eventually { second.workers.pressureEndpoints.connectionCount(app: "idle") == 1 })
            await second.stop()
        }
    }

    /// Leaves a socket file at `path` that nobody listens on, as a daemon killed with SIGKILL does.
    static func leaveSocket(at path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
    }

    /// An app whose program does not exist fails its launch and leaves no memory-pressure socket;
    /// sockets left in the folder before the daemon started, for an app that is not running and
    /// for one the policy does not declare, are gone once it has started, and a file that is not
    /// a socket stays.
    @Test(.requiresRootCgroups)
    func noSocketOutlivesAFailedLaunchOrADaemonThatEndedWithoutRemovingIt() async throws {
        let policy = """
            [apps.ghost]
            command = "/nonexistent/ghost"
            """
        try await DaemonHarness.run(policy: policy, apps: ["ghost"]) { harness in
            let directory = harness.options.pressureDirectory
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Self.leaveSocket(at: directory + "/ghost.sock")
            try Self.leaveSocket(at: directory + "/retired.sock")
            try "not a socket".write(toFile: directory + "/notes.sock", atomically: false, encoding: .utf8)
            let daemon = try await harness.start()
            #expect(!FileManager.default.fileExists(atPath: directory + "/ghost.sock"))
            #expect(!FileManager.default.fileExists(atPath: directory + "/retired.sock"))
            #expect(FileManager.default.fileExists(atPath: directory + "/notes.sock"))
            _ = try? await daemon.perform(.open(app: "ghost"))
            #expect(await daemon.stateName(of: "ghost") == "notRunning")
            #expect(!FileManager.default.fileExists(atPath: directory + "/ghost.sock"))
            await daemon.stop()
        }
    }

    /// An app whose policy names its user by number (`user = 65534`) runs as that user, and its
    /// memory-pressure socket belongs to it, so that it can connect.
    @Test(.requiresRootCgroups)
    func anAppNamedByUserIDRunsAsItAndOwnsItsSocket() async throws {
        let policy = """
            [apps.idle]
            command = "/bin/sleep"
            args = ["1000"]
            user = 65534
            """
        try await DaemonHarness.run(policy: policy, apps: ["idle"]) { harness in
            let daemon = try await harness.start(stopAppsOnExit: true)
            _ = try await daemon.perform(.open(app: "idle"))
            let pid = try #require(await daemon.control.app(named: "idle")?.pids.first)
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let uidLine = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }.map(String.init)
            #expect(uidLine?.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first == "65534")
            let socket = try FileManager.default.attributesOfItem(
                atPath: harness.options.pressureDirectory + "/idle.sock")
            #expect((socket[.ownerAccountID] as? NSNumber)?.intValue == 65534)
            await daemon.stop()
        }
    }
}
