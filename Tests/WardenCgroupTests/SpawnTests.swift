import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("Spawning into groups", .serialized)
struct SpawnTests {
    private static let twentyMiB = 20 << 20

    /// Every page a child touches right after exec is charged to its v1 memory group, and the
    /// child is listed in both its groups.
    @Test(
        .requiresRootCgroups, .requiresV1Memory, .requiresBallast,
        arguments: [SpawnRequest.Method.automatic, .forkFallback])
    func childMemoryIsChargedToItsGroupFromTheStart(method: SpawnRequest.Method) async throws {
        let logs = ScratchDirectory("spawn-charge")
        defer { logs.remove() }
        try await ScratchGroup.with("charge") { group in
            let child = ChildGuard(
                try ProcessSpawner().spawn(
                    SpawnRequest(
                        executable: TestHost.ballastPath!,
                        arguments: ["--hold", "20", "--touch-at-start"],
                        standardOutputPath: logs.file("out.log"),
                        group: group.appGroup,
                        method: method
                    )
                )
            )
            #expect(child.process.method == (method == .automatic ? .clone3IntoCgroup : .fork))
            #expect(child.process.pidfd >= 0)
            let ready = await eventually { fileContains(logs.file("out.log"), "ballast: ready") }
            #expect(ready)
            let pid = child.process.pid
            #expect(ScratchGroup.pids(in: group.memoryPath!).contains(pid))
            #expect(ScratchGroup.pids(in: group.unifiedPath!).contains(pid))
            let usage = Int(try Syscalls.readText(group.memoryPath! + "/memory.usage_in_bytes").get().trimmed) ?? 0
            #expect(usage >= Self.twentyMiB)
            let stat = try Syscalls.readText(group.memoryPath! + "/memory.stat").get()
            let rss = stat.split(separator: "\n").first { $0.hasPrefix("rss ") }.flatMap { Int($0.dropFirst(4)) }
            #expect((rss ?? 0) >= Self.twentyMiB)
        }
    }

    /// The oom_score_adj asked for is in place when the program starts.
    @Test(.requiresRootCgroups, .requiresV1Memory, .requiresBallast)
    func oomScoreAdjIsSetBeforeExec() async throws {
        let logs = ScratchDirectory("spawn-oom")
        defer { logs.remove() }
        try await ScratchGroup.with("oom") { group in
            let child = ChildGuard(
                try ProcessSpawner().spawn(
                    SpawnRequest(
                        executable: TestHost.ballastPath!,
                        standardOutputPath: logs.file("out.log"),
                        oomScoreAdj: 733,
                        group: group.appGroup
                    )
                )
            )
            let ready = await eventually { fileContains(logs.file("out.log"), "ballast: ready") }
            #expect(ready)
            let value = try Syscalls.readText("/proc/\(child.process.pid)/oom_score_adj").get().trimmed
            #expect(value == "733")
        }
    }

    /// Environment, arguments, working directory, standard output and error reach the program.
    @Test(.requiresExecutable("/bin/sh"))
    func environmentDirectoryAndLogsReachTheProgram() throws {
        let logs = ScratchDirectory("spawn-env")
        defer { logs.remove() }
        let child = ChildGuard(
            try ProcessSpawner().spawn(
                SpawnRequest(
                    executable: "sh",
                    arguments: ["-c", "pwd; echo \"value=$GREETING\"; echo \"args=$0\" >&2", "first"],
                    environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"],
                    workingDirectory: logs.path,
                    standardOutputPath: logs.file("out.log"),
                    standardErrorPath: logs.file("err.log")
                )
            )
        )
        #expect(try child.waitAndReap() == .exited(0))
        let output = try Syscalls.readText(logs.file("out.log")).get()
        #expect(output == "\(logs.path)\nvalue=hello\n")
        #expect(try Syscalls.readText(logs.file("err.log")).get() == "args=first\n")
    }

    /// A normal exit and a crash are told apart when the child is reaped.
    @Test(.requiresBallast)
    func exitStatusAndCrashSignalAreReported() throws {
        let exiting = ChildGuard(
            try ProcessSpawner().spawn(
                SpawnRequest(executable: TestHost.ballastPath!, arguments: ["--exit-after", "20ms"])
            )
        )
        #expect(try exiting.process.waitForExit(timeout: .seconds(10)))
        #expect(try exiting.waitAndReap() == .exited(0))
        let crashing = ChildGuard(
            try ProcessSpawner().spawn(
                SpawnRequest(executable: TestHost.ballastPath!, arguments: ["--crash-after", "20ms"])
            )
        )
        #expect(try crashing.waitAndReap() == .signaled(SIGABRT))
    }

    /// A running child is reported as running, and waiting with a short timeout says it has not ended.
    @Test(.requiresBallast)
    func runningChildIsNotReportedAsExited() throws {
        let child = ChildGuard(try ProcessSpawner().spawn(SpawnRequest(executable: TestHost.ballastPath!)))
        #expect(try child.process.waitForExit(timeout: .milliseconds(50)) == false)
        #expect(try child.process.reapIfExited() == nil)
        try child.process.send(signal: SIGTERM)
        #expect(try child.waitAndReap() == .signaled(SIGTERM))
    }

    /// A child that cannot reach its program (its group frozen by someone else) does not hold the
    /// spawn for ever: past the start timeout it is killed, and the error says why; the group
    /// empties once thawed, and no zombie is left.
    @Test(.requiresRootCgroups, .requiresExecutable("/bin/true"), .timeLimit(.minutes(1)))
    func aChildFrozenBeforeExecFailsTheSpawnAtTheTimeout() async throws {
        try await ScratchGroup.with("frozen", memory: false) { group in
            let unified = try #require(group.unifiedPath)
            try Syscalls.writeText("1", to: unified + "/cgroup.freeze").get()
            let error = #expect(throws: CgroupError.self) {
                try ProcessSpawner().spawn(
                    SpawnRequest(executable: "/bin/true", group: group.appGroup, startTimeout: .milliseconds(300)))
            }
            #expect(error?.message.contains("did not reach its program within 300ms") == true)
            #expect(error?.message.contains("\"/bin/true\"") == true)
            try Syscalls.writeText("0", to: unified + "/cgroup.freeze").get()
            #expect(await eventually { ScratchGroup.pids(in: unified).isEmpty })
        }
    }

    /// A program that is not in PATH gives an error that names it and the search path.
    @Test func missingProgramIsReportedByName() {
        let error = #expect(throws: CgroupError.self) {
            try ProcessSpawner().spawn(
                SpawnRequest(executable: "no-such-program-xyz", environment: ["PATH": "/usr/bin:/bin"])
            )
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("\"no-such-program-xyz\"") == true)
        #expect(error?.message.contains("/usr/bin:/bin") == true)
    }

    /// A working directory that does not exist is reported by the child through the error pipe, by path.
    @Test(.requiresExecutable("/bin/true"))
    func missingWorkingDirectoryIsReportedByPath() {
        let error = #expect(throws: CgroupError.self) {
            try ProcessSpawner().spawn(
                SpawnRequest(executable: "/bin/true", workingDirectory: "/nonexistent/appwarden-dir")
            )
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("/nonexistent/appwarden-dir") == true)
    }

    /// A user name that does not exist is refused before any process is created.
    @Test func unknownUserIsRefused() {
        let error = #expect(throws: CgroupError.self) {
            try ProcessSpawner().spawn(SpawnRequest(executable: "/bin/true", user: .name("no-such-user-appwarden")))
        }
        #expect(error?.message.contains("\"no-such-user-appwarden\"") == true)
    }

    /// A group whose cgroup.procs cannot be joined fails the spawn with the file's path.
    @Test(.requiresExecutable("/bin/true"))
    func unjoinableGroupIsReportedByPath() {
        let group = AppGroup(name: "missing", v1ProcsFiles: ["/nonexistent/appwarden-group/cgroup.procs"])
        let error = #expect(throws: CgroupError.self) {
            try ProcessSpawner().spawn(SpawnRequest(executable: "/bin/true", group: group))
        }
        #expect(error?.message.contains("/nonexistent/appwarden-group/cgroup.procs") == true)
    }

    /// PATH lookup takes the first executable match, honours relative paths, and names what is missing.
    @Test func executableLookupFollowsPath() throws {
        let files: Set<String> = ["/opt/b/tool", "/opt/c/tool", "/srv/app/bin/run"]
        let lookup = { (name: String) throws(CgroupError) -> String in
            try ProcessSpawner.resolveExecutable(
                name, searchPath: "/opt/a:/opt/b:/opt/c", workingDirectory: "/srv/app", isExecutable: files.contains
            )
        }
        #expect(try lookup("tool") == "/opt/b/tool")
        #expect(try lookup("bin/run") == "/srv/app/bin/run")
        #expect(try lookup("/opt/c/tool") == "/opt/c/tool")
        #expect(throws: CgroupError.self) { try lookup("other") }
        #expect(throws: CgroupError.self) { try lookup("/opt/a/tool") }
    }
}

extension String {
    /// The text without surrounding whitespace and newlines.
    var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
