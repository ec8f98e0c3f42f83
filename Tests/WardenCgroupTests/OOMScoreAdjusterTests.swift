import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("oom_score_adj")
struct OOMScoreAdjusterTests {
    /// Every live pid of an app gets the value; a pid that no longer exists is skipped, not an error.
    @Test(.requiresRoot, .requiresBallast)
    func valueIsWrittenForLiveProcessesAndVanishedOnesAreSkipped() throws {
        let first = ChildGuard(try ProcessSpawner().spawn(SpawnRequest(executable: TestHost.ballastPath!)))
        let second = ChildGuard(try ProcessSpawner().spawn(SpawnRequest(executable: TestHost.ballastPath!)))
        let adjuster = OOMScoreAdjuster()
        let vanished = Int32.max
        let adjusted = try adjuster.set(615, for: [first.process.pid, vanished, second.process.pid])
        #expect(adjusted == [first.process.pid, second.process.pid])
        #expect(try adjuster.value(of: first.process.pid) == 615)
        #expect(try adjuster.value(of: second.process.pid) == 615)
        #expect(try adjuster.value(of: vanished) == nil)
        try adjuster.set(250, for: [first.process.pid])
        #expect(try adjuster.value(of: first.process.pid) == 250)
        #expect(try adjuster.value(of: second.process.pid) == 615)
    }

    /// A value the kernel would refuse is rejected before anything is written.
    @Test func outOfRangeValueIsRejected() throws {
        let root = ScratchDirectory("oom-fixture")
        defer { root.remove() }
        let error = #expect(throws: CgroupError.self) { try OOMScoreAdjuster(procRoot: root.path).set(1001, for: [1]) }
        #expect(error?.message.contains("1001") == true)
    }

    /// Under a fixture root the value lands in PID/oom_score_adj there.
    @Test func fixtureRootReceivesTheValue() throws {
        let root = ScratchDirectory("oom-tree")
        defer { root.remove() }
        try Syscalls.mkdir(root.file("42")).get()
        close(open(root.file("42/oom_score_adj"), O_CREAT | O_WRONLY, 0o644))
        let adjuster = OOMScoreAdjuster(procRoot: root.path)
        #expect(try adjuster.set(900, for: [42, 43]) == [42])
        #expect(try Syscalls.readText(root.file("42/oom_score_adj")).get() == "900")
        #expect(try adjuster.value(of: 42) == 900)
    }
}
