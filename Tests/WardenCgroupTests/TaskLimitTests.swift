import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Real-kernel tests of the task limit (`pids.max`) on this host's pids controller: the v1 pids
/// hierarchy here, or the cgroup2 pids controller where the host has one.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresV1Memory, .requiresV1Freezer, .requiresPidsController
)
struct TaskLimitTests {
    private func makeDriver() throws -> HybridDriver {
        let layout = try #require(TestHost.cgroupLayout)
        return try HybridDriver(
            layout: layout,
            configuration: CgroupConfiguration(rootName: TestCgroupName.unique(), placement: .hierarchyRoot))
    }

    /// The directory that holds the group's pids files.
    private func pidsDirectory(of group: AppGroup) throws -> String {
        try #require(group.pidsPath ?? group.unifiedPath)
    }

    /// A task limit reads back from `pids.max`, and no limit reads back as `max`.
    @Test func taskLimitIsWrittenToPidsMax() async throws {
        try await CgroupTestSupport.withCleanup(try makeDriver(), groups: ["limited"]) { driver, groups in
            let directory = try pidsDirectory(of: groups[0])
            try await driver.setTasksMax(37, of: groups[0])
            #expect(try TaskLimitFiles.read(in: directory).max == 37)
            try await driver.setTasksMax(nil, of: groups[0])
            #expect(try TaskLimitFiles.read(in: directory).max == nil)
            await #expect(throws: CgroupError.self) { try await driver.setTasksMax(0, of: groups[0]) }
        }
    }

    /// A shell forking `sleep`s in a loop inside an app's group stops at the limit: the group
    /// never holds more tasks than the limit, the kernel refuses forks (EAGAIN, counted in
    /// `pids.events`), killing the group ends every one of its processes, and a process in
    /// another app's group and the test process itself are unharmed.
    @Test(.requiresExecutable("/bin/bash"))
    func forkBombIsCappedAtTheLimitAndDiesWithItsGroup() async throws {
        let limit = 24
        let scratch = ScratchDirectory("fork-bomb")
        defer { scratch.remove() }
        try await CgroupTestSupport.withCleanup(try makeDriver(), groups: ["bomb", "bystander"]) { driver, groups in
            let (bomb, bystander) = (groups[0], groups[1])
            try await driver.setTasksMax(limit, of: bomb)
            let directory = try pidsDirectory(of: bomb)
            let errors = scratch.file("bomb.err")
            let spawner = ProcessSpawner()
            let neighbour = ChildGuard(
                try spawner.spawn(SpawnRequest(executable: "/bin/sleep", arguments: ["600"], group: bystander)))
            let bombProcess = ChildGuard(
                try spawner.spawn(
                    SpawnRequest(
                        executable: "/bin/bash", arguments: ["-c", "while :; do /bin/sleep 600 & done"],
                        standardErrorPath: errors, group: bomb)))

            let refused = await eventually(within: .seconds(30)) {
                ((try? TaskLimitFiles.read(in: directory))?.refusedForks ?? 0) > 0
            }
            #expect(refused, "the kernel never refused a fork in the bomb's group")
            var highest = 0
            for _ in 0..<200 {
                let reading = try TaskLimitFiles.read(in: directory)
                highest = max(highest, reading.current)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(highest <= limit, "the group held \(highest) tasks, more than its limit of \(limit)")
            #expect(highest >= limit - 2, "the bomb reached only \(highest) tasks; it should fill the group")
            #expect(
                await eventually(within: .seconds(30)) { fileContains(errors, "Resource temporarily unavailable") },
                "bash did not report EAGAIN from fork")

            try await driver.kill(bomb)
            #expect(try await driver.processes(in: bomb).isEmpty)
            #expect(try bombProcess.waitAndReap() == .signaled(SIGKILL))
            let emptied = await eventually(within: .seconds(30)) {
                (try? TaskLimitFiles.read(in: directory))?.current == 0
            }
            #expect(emptied, "the group still counts tasks after the kill")
            #expect(try await driver.processes(in: bystander) == [neighbour.process.pid])
            #expect(kill(neighbour.process.pid, 0) == 0, "the other app's process died with the bomb")
            #expect(kill(getpid(), 0) == 0)
        }
    }
}
