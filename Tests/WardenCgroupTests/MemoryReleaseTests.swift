import Logging
import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Real-kernel tests of `process_mrelease(2)` on killed processes in this host's v1 memory and
/// freezer hierarchies. Each test uses its own root group and removes everything it made.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresV1Memory, .requiresV1Freezer
)
struct MemoryReleaseTests {
    private static let mebibyte: UInt64 = 1 << 20
    private let logger = Logger(label: "appwarden.test")

    private func makeDriver() throws -> HybridDriver {
        let layout = try #require(TestHost.cgroupLayout)
        let configuration = CgroupConfiguration(
            rootName: TestCgroupName.unique(), placement: .hierarchyRoot, prefersV1Freezer: true)
        return try HybridDriver(layout: layout, configuration: configuration)
    }

    private func usage(of group: AppGroup) throws -> UInt64 {
        let path = try #require(group.memoryPath) + "/memory.usage_in_bytes"
        return try CgroupFileParser.integer(try Syscalls.readText(path).get(), path: path)
    }

    /// The memory of a killed process that stays frozen, and so cannot run its exit path, leaves
    /// its group once it is released.
    @Test(.enabled(if: Self.kernelHasMemoryRelease, "needs process_mrelease (Linux 5.15 or later)"))
    func releasingAKilledFrozenProcessEmptiesItsMemoryGroup() async throws {
        let driver = try makeDriver()
        try await CgroupTestSupport.withCleanup(driver, groups: ["victim"]) { driver, groups in
            let group = groups[0]
            let ready = "/tmp/\(driver.configuration.rootName)-ready"
            defer { unlink(ready) }
            // Keeps a 200 MiB string, then says so and sleeps.
            let process = try TestProcess(
                "exec perl -e '$x = \"a\" x (200 * 1024 * 1024); open(F, \">\(ready)\"); close(F); sleep 1 while 1'")
            defer { process.stop() }
            try await driver.attach(process.pid, to: group)
            // The group is joined before the allocation; wait for it to finish.
            #expect(await eventually(within: .seconds(30)) { Syscalls.exists(ready) })
            let before = try usage(of: group)
            try #require(before >= 190 * Self.mebibyte, "the group holds only \(before) bytes")
            try await driver.freeze(group)
            try Syscalls.kill(process.pid, SIGKILL).get()

            let report = MemoryRelease(pids: [process.pid], logger: logger).release()

            #expect(report == MemoryRelease.Report(released: 1, prioritized: 1))
            let dropped = await eventually(within: .seconds(20)) {
                (try? usage(of: group)).map { $0 + 150 * Self.mebibyte <= before } ?? false
            }
            #expect(dropped, "usage went from \(before) to \((try? usage(of: group)) ?? 0) bytes")
            // Still frozen and listed: the memory left through the release, not through exit.
            #expect(try await driver.processes(in: group) == [process.pid])
        }
    }

    /// Releasing a process that has already been reaped does nothing and reports it gone, whether
    /// its pidfd was opened before or after it was reaped.
    @Test func releasingAReapedProcessIsHarmless() async throws {
        let early = try TestProcess("sleep 30")
        let openedEarly = MemoryRelease(pids: [early.pid], logger: logger)
        early.stop()
        let late = try TestProcess("exit 0")
        #expect(await eventually { late.hasExited() })
        let openedLate = MemoryRelease(pids: [late.pid], logger: logger)

        let earlyReport = openedEarly.release()
        let lateReport = openedLate.release()

        #expect(earlyReport.released == 0 && lateReport.released == 0)
        if !earlyReport.unsupported { #expect(earlyReport.gone == 1) }
        #expect(lateReport.gone == 1 || lateReport.notDying == 1, "a reused pid is not dying")
    }

    /// Before a kill for memory every thread of the victim gets the highest CPU priority, so that
    /// its exit does not wait behind other work; a process that is not dying is left running.
    @Test func preparingAReleaseGivesEveryThreadOfTheProcessTheHighestPriority() async throws {
        // A main thread and three more, all sleeping.
        let process = try TestProcess(
            "exec python3 -c 'import threading, time\n"
                + "for _ in range(3): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
                + "time.sleep(60)'")
        defer { process.stop() }
        let taskDirectory = "/proc/\(process.pid)/task"
        #expect(await eventually { (try? Syscalls.listDirectory(taskDirectory).get())?.count == 4 })

        let release = MemoryRelease(pids: [process.pid], logger: logger)
        let report = release.release()

        let threads = try Syscalls.listDirectory(taskDirectory).get()
        #expect(threads.count == 4)
        for thread in threads {
            #expect(try Self.nice(of: "\(taskDirectory)/\(thread)/stat") == MemoryRelease.victimNice)
        }
        #expect(report.prioritized == 4)
        #expect(report.released == 0)
        #expect(!process.hasExited())
    }

    /// The nice value in a `/proc/…/stat` file (field 19).
    private static func nice(of statPath: String) throws -> Int32 {
        let text = try Syscalls.readText(statPath).get()
        let fields = try #require(text.split(separator: ")").last).split(separator: " ")
        // After the command: state (3), ppid (4), … nice (19).
        return try #require(Int32(fields[19 - 3]))
    }

    /// Whether this kernel has `process_mrelease(2)`: `-1` is never a pidfd, so a kernel with
    /// the call answers `EBADF` and one without `ENOSYS`.
    static var kernelHasMemoryRelease: Bool {
        if case .failure(let error) = Syscalls.releaseMemory(pidfd: -1) { return error.rawValue != ENOSYS }
        return true
    }
}
