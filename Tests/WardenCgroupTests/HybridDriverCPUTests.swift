import Testing
import WardenTesting

@testable import WardenCgroup

/// Real-kernel tests of rule 13 on this host's v1 cpu hierarchy: the classes' weights written as
/// `cpu.shares`, and what they do to two busy processes that share one CPU.
@Suite(
    .serialized,
    .requiresRootCgroups, .requiresV1Memory, .requiresV1Freezer,
    .enabled(if: TestHost.cgroupLayout?.v1Hierarchies["cpu"] != nil, "needs the v1 cpu hierarchy")
)
struct HybridDriverCPUTests {
    private func makeDriver() throws -> HybridDriver {
        let layout = try #require(TestHost.cgroupLayout)
        let configuration = CgroupConfiguration(rootName: TestCgroupName.unique(), placement: .hierarchyRoot)
        return try HybridDriver(layout: layout, configuration: configuration)
    }

    /// A process that spins on CPU 0 only, so that two of them contend for one core.
    private func spinnerOnCPU0() throws -> TestProcess {
        try TestProcess("exec taskset -c 0 sh -c 'while :; do :; done'")
    }

    /// CPU time each group used over `span`, from the groups' cgroup2 `cpu.stat`.
    private func usage(
        of groups: [AppGroup], over span: Duration, with driver: HybridDriver
    ) async throws -> [Double] {
        var before: [Duration] = []
        for group in groups { before.append(try #require(try await driver.cpuUsage(of: group))) }
        try await Task.sleep(for: span)
        var used: [Double] = []
        for (index, group) in groups.enumerated() {
            let after = try #require(try await driver.cpuUsage(of: group))
            let delta = after - before[index]
            used.append(Double(delta.components.seconds) + Double(delta.components.attoseconds) / 1e18)
        }
        return used
    }

    /// The app groups join the v1 cpu hierarchy, take the classes' weights as `cpu.shares` and a
    /// cap as the CFS quota, and are removed with the app's other groups.
    @Test func theControlsAreWrittenToTheV1CPUHierarchy() async throws {
        let driver = try makeDriver()
        #expect(driver.cpuController == .v1)
        try await CgroupTestSupport.withCleanup(driver, groups: ["front"]) { driver, groups in
            let group = groups[0]
            let directory = try #require(group.cpuPath)
            #expect(Syscalls.isDirectory(directory))
            try await driver.setCPU(CPUControls(weight: 10_000), of: group)
            #expect(try Syscalls.readText(directory + "/cpu.shares").get() == "102400\n")
            #expect(try Syscalls.readText(directory + "/cpu.cfs_quota_us").get() == "-1\n")
            try await driver.setCPU(CPUControls(weight: 1, maxPercent: 50), of: group)
            #expect(try Syscalls.readText(directory + "/cpu.shares").get() == "10\n")
            #expect(try Syscalls.readText(directory + "/cpu.cfs_quota_us").get() == "50000\n")
            try await driver.remove(group)
            #expect(!Syscalls.isDirectory(directory))
        }
    }

    /// Beside a busy background app on the same core, a busy foreground app keeps nearly all of
    /// it; once the foreground app is frozen, the background app gets the core back.
    @Test func theForegroundKeepsItsCoreAndTheBackgroundGetsWhatItLeaves() async throws {
        let driver = try makeDriver()
        try await CgroupTestSupport.withCleanup(driver, groups: ["front", "back"]) { driver, groups in
            let (front, back) = (groups[0], groups[1])
            try await driver.setCPU(CPUControls(weight: 10_000), of: front)
            try await driver.setCPU(CPUControls(weight: 1), of: back)
            let frontProcess = try spinnerOnCPU0()
            defer { frontProcess.stop() }
            let backProcess = try spinnerOnCPU0()
            defer { backProcess.stop() }
            try await driver.attach(frontProcess.pid, to: front)
            try await driver.attach(backProcess.pid, to: back)
            let shared = try await usage(of: [front, back], over: .seconds(1), with: driver)
            let frontShare = shared[0] / (shared[0] + shared[1])
            #expect(frontShare > 0.85, "the foreground got \(frontShare) of the core beside the background")

            try await driver.freeze(front)
            let alone = try await usage(of: [back], over: .seconds(1), with: driver)
            // Against what it got beside the foreground, not against the whole core: other work on
            // a busy host takes its share of CPU 0 too.
            #expect(
                alone[0] > 0.1 && alone[0] > 5 * shared[1],
                "the background got \(alone[0]) s of CPU in 1 s with the foreground frozen, \(shared[1]) s beside it")
            try await driver.thaw(front)
        }
    }
}
