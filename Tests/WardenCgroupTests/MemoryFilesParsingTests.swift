import Testing

@testable import WardenCgroup

/// The pure parsers behind OOM kills, swap and compression: the kernel's texts in, figures out.
@Suite struct MemoryFilesParsingTests {
    /// A v2 group's counters: a kill at its own limit shows as `oom` and `oom_kill` rising.
    @Test func aV2GroupsOOMStateIsRead() throws {
        let state = try GroupOOMState.parseV2(
            events: "low 0\nhigh 3\nmax 12\noom 1\noom_kill 1\noom_group_kill 1\n", max: "100663296\n",
            peak: "100663296\n", path: "/sys/fs/cgroup/a/leak")
        #expect(state == GroupOOMState(kills: 1, limitHits: 1, limit: 100_663_296, peak: 100_663_296))
        let before = GroupOOMState(kills: 0, limitHits: 0, limit: 100_663_296, peak: nil)
        #expect(state.killedSince(before))
        #expect(state.reachedLimitSince(before))
        let unlimited = try GroupOOMState.parseV2(
            events: "oom 0\noom_kill 1\n", max: "max\n", peak: nil, path: "/sys/fs/cgroup/a/leak")
        #expect(unlimited.limit == nil)
        #expect(!unlimited.reachedLimitSince(nil))
    }

    /// A v1 group's counters: `failcnt` counts the limit reached; the largest limit is none.
    @Test func aV1GroupsOOMStateIsRead() throws {
        let state = try GroupOOMState.parseV1(
            oomControl: "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", failcnt: "57\n", limit: "100663296\n",
            maxUsage: "100659200\n", path: "/sys/fs/cgroup/memory/a/leak")
        #expect(state == GroupOOMState(kills: 2, limitHits: 57, limit: 100_663_296, peak: 100_659_200))
        let unlimited = try GroupOOMState.parseV1(
            oomControl: "oom_kill 0\n", failcnt: "0\n", limit: "9223372036854771712\n", maxUsage: nil,
            path: "/sys/fs/cgroup/memory/a/idle")
        #expect(unlimited.limit == nil)
    }

    /// `/proc/swaps` names zram devices; a swap file among them means swap on a disk.
    @Test func swapDevicesTellZramFromADisk() {
        let zram = SwapDevices.parse(
            "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zram0 partition\t524284\t\t0\t\t100\n")
        #expect(zram.zramNames == ["zram0"])
        let mixed = SwapDevices.parse(
            "Filename Type Size Used Priority\n/dev/zram0 partition 524284 0 100\n/swapfile file 1048572 0 -2\n")
        #expect(mixed.zramNames == nil)
        #expect(SwapDevices.parse("Filename Type Size Used Priority\n").zramNames == nil)
        let usage = SwapDevices.zramUsage(
            mmStat: "  125829120  62914560  65011712        0  65011712      0      0      0      0\n")
        #expect(usage?.data == 125_829_120 && usage?.memory == 65_011_712)
    }

    /// `/proc/swaps` gives each device's kind, size and use; zram's `mm_stat` its data, compressed
    /// size and memory. A swapped byte then takes of RAM the compressed share of the zram device,
    /// nothing on the swap file, weighted by the use of each: 600 MiB in a zram at ratio 3 and
    /// 200 MiB in a file make a quarter.
    @Test func aSwappedByteTakesTheUseWeightedShareOfRAMOfTheSwapDevices() throws {
        let swaps = SwapDevices.parse(try CgroupTestSupport.fixture("swap/zram-and-file/proc/swaps"))
        #expect(swaps.paths == ["/dev/zram0", "/swapfile"])
        #expect(swaps.devices.map(\.type) == ["partition", "file"])
        #expect(swaps.devices.map(\.size) == [4_194_300 << 10, 2_097_148 << 10])
        #expect(swaps.devices.map(\.used) == [600 << 20, 200 << 20])
        #expect(swaps.zramNames == nil && swaps.anyZramNames == ["zram0"])

        let stat = try #require(
            SwapDevices.zramStat(mmStat: try CgroupTestSupport.fixture("swap/zram-and-file/sys/block/zram0/mm_stat")))
        #expect(stat == ZramStat(original: 600 << 20, compressed: 200 << 20, memoryUsed: 208 << 20))
        let share = swaps.inRAMShare(zram: ["zram0": stat], assumedZramRatio: 2)
        #expect(share == 0.25)
        #expect(SwapDevices.swappedInRAM(100 << 20, share: share) == 25 << 20)
        // A zram device whose mm_stat could not be read counts at the assumed ratio.
        #expect(swaps.inRAMShare(zram: [:], assumedZramRatio: 2) == 0.375)
        #expect(SwapDevices.zramStat(mmStat: "629145600 209715200\n") == nil)
    }

    /// The reader finds the swap devices and each zram's `mm_stat` under its root, and gives the
    /// same share as the parsers; without `/proc/swaps` it knows none.
    @Test func theReaderGivesTheShareOfTheSwapDevicesUnderItsRoot() {
        let reader = SwapRAMShareReader(root: CgroupTestSupport.fixtures + "/swap/zram-and-file")
        #expect(reader.share(assumedZramRatio: 2) == 0.25)
        #expect(reader.share(assumedZramRatio: 2) == 0.25)
        #expect(SwapRAMShareReader(root: CgroupTestSupport.fixtures + "/swap/none").share(assumedZramRatio: 2) == nil)
    }

    /// Swap on a drive alone takes no RAM; a zram alone takes its compressed share; with nothing
    /// in use the devices weigh by their size; without swap nothing is in RAM.
    @Test func theShareInRAMFollowsTheKindOfSwap() {
        let header = "Filename Type Size Used Priority\n"
        let drive = SwapDevices.parse(header + "/dev/sda2 partition 1048576 524288 -2\n")
        #expect(drive.inRAMShare(zram: [:], assumedZramRatio: 2) == 0)
        let zram = SwapDevices.parse(header + "/dev/zram0 partition 1048576 524288 100\n")
        let half = ZramStat(original: 512 << 20, compressed: 256 << 20, memoryUsed: 260 << 20)
        #expect(zram.inRAMShare(zram: ["zram0": half], assumedZramRatio: 3) == 0.5)
        let idle = SwapDevices.parse(header + "/dev/zram0 partition 1048576 0 100\n/swapfile file 3145728 0 -2\n")
        #expect(idle.inRAMShare(zram: [:], assumedZramRatio: 2) == 0.125)
        #expect(SwapDevices.parse(header).inRAMShare(zram: [:], assumedZramRatio: 2) == 0)
    }

    /// Only private, writable, anonymous ranges of a maps text are paged out: not code, not
    /// file mappings, not shared memory.
    @Test func onlyPrivateAnonymousRangesArePagedOut() {
        let maps = """
            55d0c0a00000-55d0c0a21000 r-xp 00000000 08:01 131 /usr/bin/ballast
            55d0c0c21000-55d0c0c22000 rw-p 00021000 08:01 131 /usr/bin/ballast
            55d0c1e3c000-55d0c1e5d000 rw-p 00000000 00:00 0 [heap]
            7f1a2c000000-7f1a30000000 rw-p 00000000 00:00 0
            7f1a30000000-7f1a30100000 rw-s 00000000 00:05 7 /dev/zero (deleted)
            7ffd4a1e0000-7ffd4a201000 rw-p 00000000 00:00 0 [stack]
            7ffd4a3f2000-7ffd4a3f4000 r-xp 00000000 00:00 0 [vdso]
            """
        let ranges = MemoryCompression.anonymousRanges(maps)
        #expect(ranges.map(\.start) == [0x55d0_c1e3_c000, 0x7f1a_2c00_0000, 0x7ffd_4a1e_0000])
        #expect(ranges.map(\.length) == [0x21000, 0x400_0000, 0x21000])
    }
}
