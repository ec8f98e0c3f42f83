import Logging
import Testing

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Rule 13's I/O weights: the files they are written to, and which drives honour them, read from
/// trees laid out as `/sys/block` and a cgroup2 group are.
struct IOWeightReachTests {
    /// A scratch folder, removed with everything in it by `body`'s end.
    private func withFolder(_ body: (String) throws -> Void) throws {
        var template = Array("/tmp/appwarden-io-XXXXXX".utf8CString)
        let folder = try #require(
            template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        defer { _ = system("rm -rf '\(folder)'") }
        try body(folder)
    }

    private func write(_ text: String, to path: String) {
        _ = system("mkdir -p \"$(dirname '\(path)')\" && printf '%s' '\(text)' > '\(path)'")
    }

    private func read(_ path: String) -> String? {
        try? Syscalls.readText(path).get()
    }

    @Test func theSchedulerInBracketsIsTheOneInUse() {
        #expect(IOWeightReach.activeScheduler("none [mq-deadline] kyber bfq\n") == "mq-deadline")
        #expect(IOWeightReach.activeScheduler("[bfq] none\n") == "bfq")
        #expect(IOWeightReach.activeScheduler("none\n") == nil)
    }

    @Test func ioCostIsOnWhereEnableIsOne() {
        let text = "8:0 enable=1 ctrl=auto rpct=0.00 rlat=250000\n8:16 enable=0 ctrl=auto rpct=0.00\n"
        #expect(IOWeightReach.costEnabledDevices(text) == ["8:0"])
    }

    /// A drive under BFQ and one with io.cost on honour the weights; one under mq-deadline does
    /// not, and the start-up sentence names each; loop devices are left out.
    @Test func theDrivesThatHonourTheWeightsAreNamed() throws {
        try withFolder { folder in
            write("none [mq-deadline] kyber bfq", to: folder + "/block/vda/queue/scheduler")
            write("254:0", to: folder + "/block/vda/dev")
            write("mq-deadline kyber [bfq] none", to: folder + "/block/vdb/queue/scheduler")
            write("254:16", to: folder + "/block/vdb/dev")
            write("[none] mq-deadline", to: folder + "/block/nvme0n1/queue/scheduler")
            write("259:0", to: folder + "/block/nvme0n1/dev")
            write("none", to: folder + "/block/loop0/queue/scheduler")
            write("259:0 enable=1 ctrl=auto", to: folder + "/cgroup/io.cost.qos")
            let reach = IOWeightReach.read(blockDirectory: folder + "/block", unifiedMount: folder + "/cgroup")
            #expect(
                reach.honouring == [
                    IOWeightReach.Drive(name: "nvme0n1", means: "io.cost"),
                    IOWeightReach.Drive(name: "vdb", means: "bfq"),
                ])
            #expect(reach.ignoring == [IOWeightReach.Drive(name: "vda", means: "mq-deadline")])
            #expect(
                reach.sentence
                    == "I/O classes through cgroup2 io.weight, in effect on nvme0n1 (io.cost), vdb (bfq); not on vda (mq-deadline)."
            )
            let none = IOWeightReach.read(blockDirectory: folder + "/block", unifiedMount: nil)
            #expect(none.honouring == [IOWeightReach.Drive(name: "vdb", means: "bfq")])
        }
    }

    @Test func noDriveHonouringIsSaidWithTheWayToChange() {
        let reach = IOWeightReach(ignoring: [IOWeightReach.Drive(name: "vda", means: "mq-deadline")])
        #expect(
            reach.sentence
                == "I/O classes written to cgroup2 io.weight, but no drive honours them (vda uses mq-deadline); a drive honours them under the bfq scheduler or with io.cost on."
        )
    }

    /// The weight goes to `io.weight` whole and to BFQ's `io.bfq.weight` within its 1...1000; a
    /// kernel without one of the files is not asked for it.
    @Test func theWeightIsWrittenToEachFileTheGroupHas() throws {
        try withFolder { folder in
            write("", to: folder + "/both/io.weight")
            write("", to: folder + "/both/io.bfq.weight")
            write("", to: folder + "/bfq/io.bfq.weight")
            let files = UnifiedHierarchy(logger: .init(label: "test"))
            try files.setIOWeight(5000, in: folder + "/both")
            #expect(read(folder + "/both/io.weight") == "5000")
            #expect(read(folder + "/both/io.bfq.weight") == "1000")
            try files.setIOWeight(10, in: folder + "/bfq")
            #expect(read(folder + "/bfq/io.bfq.weight") == "10")
            #expect(read(folder + "/bfq/io.weight") == nil)
        }
    }
}
