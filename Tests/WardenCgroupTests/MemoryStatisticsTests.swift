import Testing

@testable import WardenCgroup

/// Statistics parsers and readers over fixture trees of cgroup v2, v1 and proc files.
struct MemoryStatisticsTests {
    /// A unified driver whose cgroup2 mount is the fixture tree, so `group(named:)` reads fixtures.
    private func fixtureDriver() throws -> UnifiedDriver {
        let layout = CgroupLayout(
            unifiedMountPoint: CgroupTestSupport.fixtures, unifiedControllers: ["memory", "pids"], ownUnifiedPath: "/")
        return try UnifiedDriver(
            layout: layout, configuration: CgroupConfiguration(rootName: "cgroup-v2", placement: .hierarchyRoot))
    }

    /// The v2 files of a group give current, anon, file, shmem, swap, kernel and peak, and the
    /// footprint is anon + swap + shmem.
    @Test func pureV2GroupFilesGiveEveryFigure() async throws {
        let driver = try fixtureDriver()
        let statistics = try await driver.memoryStatistics(of: driver.group(named: "app"))
        #expect(statistics.current == 216_006_656)
        #expect(statistics.anon == 157_286_400)
        #expect(statistics.file == 52_428_800)
        #expect(statistics.shmem == 10_485_760)
        #expect(statistics.swap == 31_457_280)
        #expect(statistics.kernel == 4_194_304)
        #expect(statistics.peak == 262_144_000)
        #expect(statistics.footprint == 157_286_400 + 31_457_280 + 10_485_760)
    }

    /// Without swap accounting, memory.peak or the `kernel` key, the missing figures come out as
    /// zero or nil and the kernel figure is summed from its parts.
    @Test func olderKernelFilesStillGiveStatistics() async throws {
        let driver = try fixtureDriver()
        let statistics = try await driver.memoryStatistics(of: driver.group(named: "no-swap"))
        #expect(statistics.swap == 0)
        #expect(statistics.peak == nil)
        #expect(statistics.kernel == 327_680 + 1_048_576 + 2_621_440)
    }

    /// The group's processes, events and pressure are read from the same tree.
    @Test func processesEventsAndPressureComeFromTheTree() async throws {
        let driver = try fixtureDriver()
        let group = driver.group(named: "app")
        #expect(try await driver.processes(in: group) == [1201, 1202, 1203])
        #expect(try await driver.isFrozen(group) == false)
        let pressure = try #require(try await driver.memoryPressure(of: group))
        #expect(pressure.some.avg10 == 1.25)
        #expect(pressure.some.total == 123_456)
        #expect(pressure.full.avg60 == 0.25)
    }

    /// A memory.stat value that is not a number is refused, naming the file and the line.
    @Test func malformedStatIsRefusedNamingFileAndLine() async throws {
        let driver = try fixtureDriver()
        let error = await #expect(throws: CgroupError.self) {
            try await driver.memoryStatistics(of: driver.group(named: "malformed-stat"))
        }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains("malformed-stat/memory.stat") == true)
        #expect(error?.message.contains("line 2") == true)
    }

    /// A memory.current that is not a number, or a memory.stat without a key, is refused by name.
    @Test func malformedCurrentAndMissingKeyAreRefused() async throws {
        let error = #expect(throws: CgroupError.self) {
            try MemoryStatistics.unified(stat: "anon 1\nfile 2\nshmem 3\n", current: "twelve", directory: "/g")
        }
        #expect(error?.message.contains("/g/memory.current") == true)
        #expect(error?.message.contains("twelve") == true)
        let missing = #expect(throws: CgroupError.self) {
            try MemoryStatistics.unified(stat: "anon 1\nfile 2\n", current: "3", directory: "/g")
        }
        #expect(missing?.message.contains("\"shmem\"") == true)
    }

    /// A malformed pressure file is refused, naming the line.
    @Test func malformedPressureIsRefused() throws {
        let text = try CgroupTestSupport.fixture("cgroup-v2/malformed-stat/memory.pressure")
        let error = #expect(throws: CgroupError.self) { try PressureStall.parse(text, path: "memory.pressure") }
        #expect(error?.message.contains("line 1") == true)
    }

    /// v1 memory.stat totals map to the same figures: rss is anon, shmem is taken out of cache.
    @Test func v1StatisticsUseTheTotals() throws {
        let stat = "cache 1\nrss 2\ntotal_cache 300\ntotal_rss 500\ntotal_shmem 100\ntotal_swap 40\n"
        let statistics = try MemoryStatistics.v1(stat: stat, usage: "900\n", maxUsage: "1200\n", kernelUsage: "60\n")
        #expect(statistics.anon == 500)
        #expect(statistics.file == 200)
        #expect(statistics.shmem == 100)
        #expect(statistics.swap == 40)
        #expect(statistics.kernel == 60)
        #expect(statistics.peak == 1200)
        #expect(statistics.current == 900)
        #expect(statistics.footprint == 640)
    }

    /// /proc/PID/statm pages become bytes; resident minus shared is anonymous.
    @Test func statmFallbackCountsResidentPages() throws {
        let statistics = try #require(
            try ProcessMemory.statistics(of: 4242, procRoot: CgroupTestSupport.fixtures + "/proc"))
        let page = ProcessMemory.pageSize
        #expect(statistics.current == 1280 * page)
        #expect(statistics.anon == 1024 * page)
        #expect(statistics.file == 256 * page)
        #expect(try ProcessMemory.statistics(of: 4243, procRoot: CgroupTestSupport.fixtures + "/proc") == nil)
    }

    /// /proc/meminfo gives total, available and swap in bytes; without MemAvailable it is refused.
    @Test func hostMemoryComesFromMeminfo() throws {
        let host = try HostMemory.read(path: CgroupTestSupport.fixtures + "/proc/meminfo")
        #expect(host.total == 2_048_000 * 1024)
        #expect(host.available == 1_024_000 * 1024)
        #expect(host.swapTotal == 524_288 * 1024)
        #expect(host.swapFree == 262_144 * 1024)
        let error = #expect(throws: CgroupError.self) {
            try HostMemory.read(path: CgroupTestSupport.fixtures + "/proc/meminfo-no-available")
        }
        #expect(error?.message.contains("MemAvailable") == true)
        let real = try HostMemory.read()
        #expect(real.total > 0 && real.available <= real.total)
    }

    /// A figure of interest that is not "NUMBER kB" is refused naming its line; others are skipped.
    @Test func meminfoLinesOfInterestMustBeKilobytes() throws {
        let text = "MemTotal:  2048 kB\nMemFree: x\nMemAvailable:\t1024 kB\nHugePages_Total:  0\n"
        #expect(try HostMemory.parse(text) == HostMemory(total: 2048 * 1024, available: 1024 * 1024))
        #expect(try HostMemory.parse("MemTotal: 7\nMemAvailable: 3") == HostMemory(total: 7, available: 3))
        for bad in ["MemAvailable: lots kB", "MemAvailable: 12 MB", "MemAvailable: 99999999999999999999 kB"] {
            let error = #expect(throws: CgroupError.self) { try HostMemory.parse("MemTotal: 1 kB\n" + bad + "\n") }
            #expect(error?.message.contains("line 2 (\"\(bad)\")") == true, "\(bad)")
        }
        #expect(throws: CgroupError.self) { try HostMemory.parse("MemTotal: 1 kB\n") }
    }

    /// Limits read "max" as none and numbers as bytes; anything else is refused.
    @Test func limitsParseMaxAsNone() throws {
        #expect(try CgroupFileParser.limit("max\n", path: "memory.max") == nil)
        #expect(try CgroupFileParser.limit("209715200\n", path: "memory.high") == 209_715_200)
        #expect(throws: CgroupError.self) { try CgroupFileParser.limit("lots", path: "memory.max") }
    }
}
