import Testing
import WardenTesting

@testable import WardenCgroup

/// Sampling through kept-open descriptors, on the fixture tree and on real v1 groups.
struct MemorySamplerTests {
    /// A tracked v2 group reports its memory.current and, in full sweeps, its footprint.
    @Test func fixtureGroupIsSampledThroughOpenFiles() throws {
        let group = AppGroup(name: "app", unifiedPath: CgroupTestSupport.fixtures + "/cgroup-v2/app")
        let sampler = MemorySampler()
        try sampler.track(group, source: .unified)
        #expect(sampler.sampleCurrent() == ["app": 216_006_656])
        let statistics = try #require(sampler.sampleStatistics()["app"])
        #expect(statistics.footprint == 157_286_400 + 31_457_280 + 10_485_760)
        #expect(statistics.peak == 262_144_000)
        sampler.untrack("app")
        #expect(sampler.sampleCurrent().isEmpty)
    }

    /// Tracking a group without the needed directory fails with a sentence naming the group.
    @Test func groupWithoutAMemoryDirectoryIsRefused() {
        let sampler = MemorySampler()
        let error = #expect(throws: CgroupError.self) {
            try sampler.track(AppGroup(name: "mail", unifiedPath: "/nowhere/mail"), source: .v1)
        }
        #expect(error?.message.contains("\"mail\"") == true)
    }

    /// Real v1 groups are sampled, and one removed between sweeps is dropped rather than reported.
    @Test(.requiresRootCgroups, .requiresV1Memory, .requiresV1Freezer)
    func removedGroupIsDroppedFromTheSweep() async throws {
        let layout = try #require(TestHost.cgroupLayout)
        let driver = try HybridDriver(
            layout: layout,
            configuration: CgroupConfiguration(rootName: TestCgroupName.unique(), placement: .hierarchyRoot))
        try await CgroupTestSupport.withCleanup(driver, groups: ["kept", "dropped"]) { driver, groups in
            let sampler = MemorySampler()
            for group in groups { try sampler.track(group, source: .v1) }
            let process = try TestProcess("while :; do sleep 1; done")
            defer { process.stop() }
            try await driver.attach(process.pid, to: groups[0])
            let first = sampler.sampleStatistics()
            #expect(first.keys.sorted() == ["dropped", "kept"])
            try await driver.remove(groups[1])
            let second = sampler.sampleCurrent()
            #expect(second.keys.sorted() == ["kept"])
            #expect(sampler.groupNames == ["kept"])
        }
    }

    /// The byte scanner used in sweeps gives the same figures as the reference parsers.
    @Test func byteScannerAgreesWithTheReferenceParsers() throws {
        for name in ["app", "no-swap"] {
            let text = try CgroupTestSupport.fixture("cgroup-v2/\(name)/memory.stat")
            let reference = try MemoryStatistics.unified(stat: text, current: "0")
            let scanned = try #require(scan(text, unified: true))
            #expect(scanned.anon == reference.anon)
            #expect(scanned.file == reference.file)
            #expect(scanned.shmem == reference.shmem)
            #expect(scanned.kernel == reference.kernel)
        }
        let v1 = "cache 1\nrss 2\ntotal_cache 300\ntotal_rss 500\ntotal_shmem 100\ntotal_swap 40\n"
        let reference = try MemoryStatistics.v1(stat: v1, usage: "0")
        let scanned = try #require(scan(v1, unified: false))
        #expect(scanned.anon == reference.anon && scanned.file == reference.file)
        #expect(scanned.shmem == reference.shmem && scanned.swap == reference.swap)
    }

    /// The byte scanner refuses a memory.stat with a missing key or a value that is not a number.
    @Test func byteScannerRefusesMalformedText() throws {
        let malformed = try CgroupTestSupport.fixture("cgroup-v2/malformed-stat/memory.stat")
        #expect(scan(malformed, unified: true) == nil)
        #expect(scan("anon 1\nfile 2\n", unified: true) == nil)
        #expect(scan("total_rss 99999999999999999999999\ntotal_cache 1\n", unified: false) == nil)
    }

    private func scan(_ text: String, unified: Bool) -> MemoryStatScanner.Figures? {
        var text = text
        return text.withUTF8 { MemoryStatScanner.scan(UnsafeRawBufferPointer($0), unified: unified) }
    }
}
