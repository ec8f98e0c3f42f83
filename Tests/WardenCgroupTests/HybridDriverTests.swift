import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Real-kernel tests of the hybrid driver on this host's v1 memory and freezer hierarchies and its
/// cgroup2 mount. Each test uses its own root group and removes everything it made.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresV1Memory, .requiresV1Freezer
)
struct HybridDriverTests {
    private func makeDriver(prefersV1Freezer: Bool) throws -> HybridDriver {
        let layout = try #require(TestHost.cgroupLayout)
        let configuration = CgroupConfiguration(
            rootName: TestCgroupName.unique(), placement: .hierarchyRoot,
            prefersV1Freezer: prefersV1Freezer)
        return try HybridDriver(layout: layout, configuration: configuration)
    }

    /// On this host memory comes from the v1 hierarchy and freezing from the cgroup2 mount.
    @Test func hybridHostTakesMemoryFromV1AndFreezingFromCgroup2() throws {
        let driver = try makeDriver(prefersV1Freezer: false)
        #expect(driver.memoryFromV1)
        #expect(!driver.freezesThroughV1)
        let group = driver.group(named: "mail")
        #expect(group.memoryPath == "/sys/fs/cgroup/memory/\(driver.configuration.rootName)/mail")
        #expect(group.unifiedPath == "/sys/fs/cgroup/unified/\(driver.configuration.rootName)/mail")
        #expect(group.freezerPath == nil)
        let root = driver.configuration.rootName
        #expect(driver.tasksFromV1 == (TestHost.cgroupLayout?.unifiedControllers.contains("pids") == false))
        let pidsFiles = driver.tasksFromV1 ? ["/sys/fs/cgroup/pids/\(root)/mail/cgroup.procs"] : []
        let cpuFiles = driver.cpuFromV1 ? ["/sys/fs/cgroup/cpu/\(root)/mail/cgroup.procs"] : []
        #expect(group.v1ProcsFiles == ["/sys/fs/cgroup/memory/\(root)/mail/cgroup.procs"] + pidsFiles + cpuFiles)
    }

    /// A process attached to a group is listed in it, stops using CPU while frozen (cgroup2
    /// freezer), runs again after a thaw, dies with the group, and the groups are then removed.
    @Test func groupLifecycleThroughTheCgroup2Freezer() async throws {
        try await exerciseLifecycle(prefersV1Freezer: false)
    }

    /// The same lifecycle through the v1 freezer, where kill must thaw for the process to die.
    @Test func groupLifecycleThroughTheV1Freezer() async throws {
        try await exerciseLifecycle(prefersV1Freezer: true)
    }

    private func exerciseLifecycle(prefersV1Freezer: Bool) async throws {
        let driver = try makeDriver(prefersV1Freezer: prefersV1Freezer)
        #expect(driver.freezesThroughV1 == prefersV1Freezer)
        // Only cgroup2's freezer tells of a group frozen or thawed.
        #expect((driver.freezeNotices() == nil) == prefersV1Freezer)
        try await CgroupTestSupport.withCleanup(driver, groups: ["spinner"]) { driver, groups in
            let group = groups[0]
            for path in group.allPaths { #expect(Syscalls.isDirectory(path), "\(path) was not created") }
            let process = try TestProcess.busyLoop()
            defer { process.stop() }
            try await driver.attach(process.pid, to: group)
            #expect(try await driver.processes(in: group) == [process.pid])
            let membership = try Syscalls.readText("/proc/\(process.pid)/cgroup").get()
            #expect(membership.contains(":memory:/\(driver.configuration.rootName)/spinner"))

            try await driver.freeze(group)
            #expect(try await driver.isFrozen(group))
            let frozenStart = try CgroupTestSupport.cpuTicks(of: process.pid)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try CgroupTestSupport.cpuTicks(of: process.pid) == frozenStart, "a frozen process used CPU")

            try await driver.thaw(group)
            #expect(try await !driver.isFrozen(group))
            let thawedStart = try CgroupTestSupport.cpuTicks(of: process.pid)
            let advanced = try await eventually(within: .seconds(3)) {
                try CgroupTestSupport.cpuTicks(of: process.pid) > thawedStart
            }
            #expect(advanced, "a thawed process did not run")

            try await driver.freeze(group)
            try await driver.kill(group)
            #expect(try await driver.processes(in: group).isEmpty)
            #expect(await eventually { process.hasExited() }, "the killed process did not exit")

            try await driver.remove(group)
            for path in group.allPaths { #expect(!Syscalls.isDirectory(path), "\(path) was not removed") }
            try await driver.removeRoot()
            try await driver.remove(group)  // a vanished group is not an error
        }
    }

    /// Memory a process allocates after joining its group is charged to the group and counted in
    /// its footprint (anonymous + swap + shmem).
    @Test func statisticsOfARealGroupCountWhatItsProcessAllocates() async throws {
        let driver = try makeDriver(prefersV1Freezer: false)
        try await CgroupTestSupport.withCleanup(driver, groups: ["allocator"]) { driver, groups in
            let group = groups[0]
            let signal = "/tmp/\(driver.configuration.rootName)-go"
            defer {
                unlink(signal)
                unlink(signal + "-done")
            }
            // Waits for the signal file, then keeps a 20 MiB string in the shell's memory.
            let process = try TestProcess(
                "while [ ! -e \(signal) ]; do sleep 0.01; done; x=$(head -c 20971520 /dev/zero | tr '\\0' a); "
                    + "touch \(signal)-done; while :; do sleep 1; done")
            defer { process.stop() }
            try await driver.attach(process.pid, to: group)
            let before = try await driver.memoryStatistics(of: group)
            close(open(signal, O_CREAT | O_WRONLY, 0o644))
            #expect(await eventually(within: .seconds(10)) { Syscalls.exists(signal + "-done") })
            let after = try await driver.memoryStatistics(of: group)
            #expect(after.anon >= before.anon + 18 * 1024 * 1024, "anon grew only from \(before.anon) to \(after.anon)")
            #expect(after.footprint >= after.anon)
            #expect(after.current >= after.anon)
            #expect((after.peak ?? 0) >= after.current)
        }
    }

    /// A memory limit set through libcgroup is what the v1 files then read.
    @Test func memoryLimitsAreWrittenToTheV1Files() async throws {
        let driver = try makeDriver(prefersV1Freezer: false)
        try await CgroupTestSupport.withCleanup(driver, groups: ["limited"]) { driver, groups in
            let group = groups[0]
            let memoryPath = try #require(group.memoryPath)
            try await driver.setMemoryLimits(MemoryLimits(max: 64 << 20, high: 48 << 20), of: group)
            let limit = try Syscalls.readText(memoryPath + "/memory.limit_in_bytes").get()
            let soft = try Syscalls.readText(memoryPath + "/memory.soft_limit_in_bytes").get()
            #expect(try CgroupFileParser.integer(limit, path: "limit") == 64 << 20)
            #expect(try CgroupFileParser.integer(soft, path: "soft") == 48 << 20)
            try await driver.setMemoryLimits(MemoryLimits(), of: group)
            let unlimited = try Syscalls.readText(memoryPath + "/memory.limit_in_bytes").get()
            #expect(try CgroupFileParser.integer(unlimited, path: "limit") > 1 << 50)
        }
    }

    /// Killing a group that another party already removed is not an error, and removing it twice is not either.
    @Test func vanishedGroupsAreNotErrors() async throws {
        let driver = try makeDriver(prefersV1Freezer: true)
        try await CgroupTestSupport.withCleanup(driver, groups: ["ghost"]) { driver, groups in
            let group = groups[0]
            for path in group.allPaths { _ = Syscalls.rmdir(path) }
            try await driver.kill(group)
            #expect(try await driver.processes(in: group).isEmpty)
            try await driver.remove(group)
        }
    }
}
