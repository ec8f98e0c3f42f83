import Synchronization
import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Real-kernel tests of the cgroup v2 driver on this host's cgroup2 mount, seen as if it were the
/// only hierarchy (a pure v2 host without the memory controller).
@Suite(.serialized, .requiresRootCgroups)
struct UnifiedDriverTests {
    private func makeDriver() throws -> UnifiedDriver {
        var layout = try #require(TestHost.cgroupLayout)
        layout.v1Hierarchies = [:]
        layout.ownV1Paths = [:]
        let configuration = CgroupConfiguration(
            rootName: TestCgroupName.unique(), placement: .hierarchyRoot, freezeTimeout: .seconds(2))
        return try UnifiedDriver(layout: layout, configuration: configuration)
    }

    /// cgroup.freeze stops every process of the group (their CPU time stands still), cgroup.thaw
    /// lets them run, and cgroup.kill empties the group even while it is frozen.
    @Test func freezeThawAndKillThroughCgroup2Files() async throws {
        let driver = try makeDriver()
        try await CgroupTestSupport.withCleanup(driver, groups: ["pair"]) { driver, groups in
            let group = groups[0]
            let first = try TestProcess.busyLoop()
            let second = try TestProcess.busyLoop()
            defer {
                first.stop()
                second.stop()
            }
            try await driver.attach(first.pid, to: group)
            try await driver.attach(second.pid, to: group)
            #expect(Set(try await driver.processes(in: group)) == [first.pid, second.pid])

            try await driver.freeze(group)
            #expect(try await driver.isFrozen(group))
            let start = try CgroupTestSupport.cpuTicks(of: first.pid) + CgroupTestSupport.cpuTicks(of: second.pid)
            try await Task.sleep(for: .milliseconds(300))
            let end = try CgroupTestSupport.cpuTicks(of: first.pid) + CgroupTestSupport.cpuTicks(of: second.pid)
            #expect(end == start, "frozen processes used CPU")

            try await driver.thaw(group)
            let advanced = try await eventually(within: .seconds(3)) {
                try CgroupTestSupport.cpuTicks(of: first.pid) + CgroupTestSupport.cpuTicks(of: second.pid) > end
            }
            #expect(advanced, "thawed processes did not run")

            try await driver.freeze(group)
            try await driver.kill(group)
            #expect(try await driver.processes(in: group).isEmpty)
            #expect(await eventually { first.hasExited() && second.hasExited() })
            try await driver.remove(group)
            #expect(!Syscalls.isDirectory(group.unifiedPath!))
            try await driver.removeRoot()
            #expect(!Syscalls.isDirectory(driver.rootDirectory))
        }
    }

    /// Without the cgroup2 memory controller, statistics fall back to /proc/PID/statm of the group's processes.
    @Test func statisticsFallBackToProcWithoutTheMemoryController() async throws {
        let driver = try makeDriver()
        try #require(driver.layout.memorySource == .procfs)
        try await CgroupTestSupport.withCleanup(driver, groups: ["sleeper"]) { driver, groups in
            let group = groups[0]
            let process = try TestProcess("while :; do sleep 1; done")
            defer { process.stop() }
            try await driver.attach(process.pid, to: group)
            let statistics = try await driver.memoryStatistics(of: group)
            let own = try #require(try ProcessMemory.statistics(of: process.pid))
            #expect(statistics.current > 0)
            #expect(statistics.current >= own.current / 2)
            let pressure = try await driver.memoryPressure(of: group)
            #expect(pressure != nil)
        }
    }

    /// The group's stall counts the time its processes waited for a CPU: two processes that spin
    /// on one CPU make it grow by about the time they spin.
    @Test func stallCountsTheTimeTheGroupWaitedForACPU() async throws {
        let driver = try makeDriver()
        try await CgroupTestSupport.withCleanup(driver, groups: ["spinners"]) { driver, groups in
            let group = groups[0]
            let idle = try #require(try await driver.stall(of: group))
            let spinners = try (0..<2).map { _ in try TestProcess("exec taskset -c 0 sh -c 'while :; do :; done'") }
            defer { for spinner in spinners { spinner.stop() } }
            for spinner in spinners { try await driver.attach(spinner.pid, to: group) }
            var stalled: Duration = .zero
            for _ in 0..<100 where stalled < .milliseconds(200) {
                try await Task.sleep(for: .milliseconds(50))
                stalled = try #require(try await driver.stall(of: group)) - idle
            }
            #expect(stalled >= .milliseconds(200))
        }
    }

    /// Freezing a group that does not exist fails with a not-found error that names its directory.
    @Test func freezeOfAMissingGroupNamesThePath() async throws {
        let driver = try makeDriver()
        let group = driver.group(named: "missing")
        let error = await #expect(throws: CgroupError.self) { try await driver.freeze(group) }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains(group.unifiedPath!) == true)
    }

    /// Under delegated placement the processes of the daemon's own group move into its leaf before
    /// the app root is created beside it, so controllers can be enabled ("no internal processes").
    @Test func delegatedPlacementMovesTheDaemonIntoALeaf() async throws {
        var layout = try #require(TestHost.cgroupLayout)
        let mount = try #require(layout.unifiedMountPoint)
        let service = TestCgroupName.unique()
        let serviceDirectory = mount + "/" + service
        layout.v1Hierarchies = [:]
        layout.ownUnifiedPath = "/" + service
        let driver = try UnifiedDriver(
            layout: layout, configuration: CgroupConfiguration(rootName: "apps", placement: .delegated))
        #expect(driver.rootDirectory == serviceDirectory + "/apps")
        try Syscalls.mkdir(serviceDirectory).get()
        let process = try TestProcess("while :; do sleep 1; done")
        defer {
            process.stop()
            for leaf in ["/apps/mail", "/apps", "/daemon", ""] {
                // A killed child may take a moment to leave its group.
                for _ in 0..<100 {
                    if case .success = Syscalls.rmdir(serviceDirectory + leaf) { break }
                    if !Syscalls.isDirectory(serviceDirectory + leaf) { break }
                    usleep(10_000)
                }
            }
        }
        try UnifiedHierarchy(logger: driver.logger).attach(process.pid, to: serviceDirectory)
        let group = try await driver.createGroup(named: "mail")
        #expect(try UnifiedHierarchy(logger: driver.logger).processes(in: serviceDirectory).isEmpty)
        // The shell may have forked a `sleep` into the group too: both moved along.
        #expect(
            try UnifiedHierarchy(logger: driver.logger).processes(in: serviceDirectory + "/daemon").contains(
                process.pid))
        #expect(Syscalls.isDirectory(try #require(group.unifiedPath)))
        process.stop()
        try await driver.remove(group)
        try await driver.removeRoot()
    }

    /// A watched group frozen and thawed by another program (its `cgroup.freeze` written
    /// directly) is noticed each time, by its name; a group not watched, or no longer watched, is
    /// not; after `stop` nothing is watched.
    @Test func aGroupFrozenOrThawedBehindTheWatchersBackIsNoticedByName() async throws {
        let driver = try makeDriver()
        try await CgroupTestSupport.withCleanup(driver, groups: ["watched", "other"]) { driver, groups in
            let process = try TestProcess.busyLoop()
            defer { process.stop() }
            try await driver.attach(process.pid, to: groups[0])
            let notices = try #require(driver.freezeNotices())
            defer { notices.stop() }
            let heard = Mutex<[String]>([])
            try notices.start { name in heard.withLock { $0.append(name) } }
            notices.watch(groups[0])
            #expect(notices.watchedGroups == ["watched"])
            func freezeFile(_ group: AppGroup) -> String { group.unifiedPath! + "/cgroup.freeze" }

            _ = Syscalls.writeText("1", to: freezeFile(groups[0]))
            #expect(await eventually(within: .seconds(3)) { !heard.withLock { $0 }.isEmpty })
            #expect(try await driver.isFrozen(groups[0]))
            let afterFreeze = heard.withLock { $0.count }
            _ = Syscalls.writeText("0", to: freezeFile(groups[0]))
            #expect(await eventually(within: .seconds(3)) { heard.withLock { $0.count } > afterFreeze })

            _ = Syscalls.writeText("1", to: freezeFile(groups[1]))
            notices.unwatch("watched")
            #expect(notices.watchedGroups.isEmpty)
            let beforeUnwatched = heard.withLock { $0.count }
            _ = Syscalls.writeText("1", to: freezeFile(groups[0]))
            #expect(try await eventually(within: .seconds(3)) { try await driver.isFrozen(groups[0]) })
            try await Task.sleep(for: .milliseconds(200))
            #expect(heard.withLock { $0.count } == beforeUnwatched)
            #expect(heard.withLock { $0 }.allSatisfy { $0 == "watched" })

            notices.stop()
            notices.watch(groups[1])
            #expect(notices.watchedGroups.isEmpty)
            _ = Syscalls.writeText("0", to: freezeFile(groups[0]))
        }
    }
}
