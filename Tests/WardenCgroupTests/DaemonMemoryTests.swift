import Foundation
import Testing

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("The daemon's own memory")
struct DaemonMemoryFiguresTests {
    /// The status figures that say what the daemon holds are read, in bytes.
    @Test func theStatusFiguresAreRead() throws {
        let status = """
            Name:\tappwarden
            VmPeak:\t  900000 kB
            VmLck:\t   12000 kB
            VmRSS:\t   18000 kB
            RssAnon:\t    9000 kB
            RssFile:\t    8500 kB
            RssShmem:\t     500 kB
            """
        let figures = try #require(DaemonMemory.parse(status: status))
        #expect(
            figures
                == DaemonMemory.Figures(
                    resident: 18000 << 10, locked: 12000 << 10, anonymous: 9000 << 10, file: 8500 << 10))
        #expect(DaemonMemory.parse(status: "Name:\tx\n") == nil)
    }

    /// Where `smaps_rollup` is read, the locked figure is its `Locked` (pages resident in
    /// locked mappings), not `VmLck` (every locked mapping whole, touched or not).
    @Test func theLockedFigureIsWhatTheRollupSaysIsResidentAndLocked() throws {
        let status = "VmLck:\t  679460 kB\nVmRSS:\t   34000 kB\nRssAnon:\t    9000 kB\n"
        let rollup = """
            55ef41287000-7ffcaab35000 ---p 00000000 00:00 0                          [rollup]
            Rss:               34000 kB
            Anonymous:          9000 kB
            Locked:            33000 kB
            """
        #expect(DaemonMemory.parse(status: status, rollup: rollup)?.locked == 33000 << 10)
        #expect(DaemonMemory.parse(status: status)?.locked == 679460 << 10)
    }

    /// The major faults counted are the process's own, as `/proc/self/stat` (its 12th field,
    /// `majflt`) gives them, read between two counts.
    @Test func majorFaultsAreTheProcessesOwnCount() throws {
        let before = DaemonMemory.majorFaults()
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let after = DaemonMemory.majorFaults()
        let fields = try #require(stat.split(separator: ")").last).split(separator: " ")
        let majflt = try #require(Int(fields[9]))
        #expect(before <= majflt && majflt <= after)
        #expect(before >= 0)
    }

    /// Giving free heap back never lets go of the code: the pages the next kill runs stay
    /// mapped (the daemon once unmapped its code to look small, and paid for it at the first
    /// kill on a slow drive).
    @Test func trimmingTheHeapKeepsTheCodeMapped() throws {
        let before = try #require(DaemonMemory.figures())
        let trimmed = try #require(DaemonMemory.trimHeap())
        let after = try #require(DaemonMemory.figures())
        #expect(trimmed.after <= trimmed.before + (1 << 20))
        #expect(after.file > before.file - (1 << 20), "code was let go: \(before) → \(after)")
        // The trim's own figure (statm) is the resident memory that /proc/self/status gives.
        #expect(abs(trimmed.after - after.resident) < 4 << 20, "\(trimmed) against \(after)")
    }

    /// Only private, read-only file mappings with pages resident and none of the process's own
    /// are let go of: not relocated read-only data, not writable data, not anonymous memory, not
    /// a mapping already locked.
    @Test func onlyCleanReadOnlyFileMappingsAreShed() {
        func mapping(_ head: String, rss: Int, anonymous: Int = 0, locked: Int = 0) -> String {
            "\(head)\nSize: 64 kB\nRss: \(rss) kB\nPss: \(rss) kB\nAnonymous: \(anonymous) kB\nLocked: \(locked) kB\n"
        }
        let smaps = [
            mapping("00400000-00500000 r--p 00000000 08:01 1234   /usr/bin/appwarden", rss: 400),
            mapping("00500000-00900000 r-xp 00100000 08:01 1234   /usr/bin/appwarden", rss: 9000),
            mapping("00900000-00a00000 r--p 00500000 08:01 1234   /usr/bin/appwarden", rss: 800, anonymous: 800),
            mapping("00a00000-00a10000 rw-p 00600000 08:01 1234   /usr/bin/appwarden", rss: 60, anonymous: 60),
            mapping("00a10000-00b00000 rw-p 00000000 00:00 0      [heap]", rss: 300, anonymous: 300),
            mapping("7f0000000000-7f0000100000 r-xp 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6", rss: 0),
            mapping("7f0000100000-7f0000200000 r-xp 00100000 08:01 99 /usr/lib/libsqlite3.so.0", rss: 500, locked: 500),
            mapping("7f0000200000-7f0000300000 r--s 00000000 08:01 77 /usr/share/zoneinfo/UTC", rss: 4),
            mapping("7ffc00000000-7ffc00001000 r-xp 00000000 00:00 0      [vdso]", rss: 4),
        ].joined()
        #expect(
            DaemonMemory.sheddableMappings(smaps: smaps) == [
                .init(start: 0x40_0000, end: 0x50_0000), .init(start: 0x50_0000, end: 0x90_0000),
            ])
    }

    /// The pages locked are the runs of mapped pages, joined across gaps no longer than the
    /// limit, so that a mapping is cut in few pieces.
    @Test func lockRunsJoinShortGaps() {
        let present: [Bool] = [false, true, true, false, false, true, false, false, false, false, true, false]
        #expect(DaemonMemory.lockRuns(present: present, gapPages: 2) == [1..<6, 10..<11])
        #expect(DaemonMemory.lockRuns(present: present, gapPages: 0) == [1..<3, 5..<6, 10..<11])
        #expect(DaemonMemory.lockRuns(present: present, gapPages: 4) == [1..<11])
        #expect(DaemonMemory.lockRuns(present: [false, false], gapPages: 8).isEmpty)
    }

    /// Clean read-only file mappings are locked where mapped; writable, anonymous and relocated
    /// mappings as they are touched; shared, kernel and unreadable mappings not at all.
    @Test func lockableMappingsTellCodeFromData() {
        func mapping(_ head: String, rss: Int, anonymous: Int = 0) -> String {
            "\(head)\nRss: \(rss) kB\nAnonymous: \(anonymous) kB\nLocked: 0 kB\n"
        }
        let smaps = [
            mapping("00400000-00500000 r-xp 00000000 08:01 1234   /usr/bin/appwarden", rss: 0),
            mapping("00500000-00600000 r--p 00100000 08:01 1234   /usr/bin/appwarden", rss: 8, anonymous: 8),
            mapping("00600000-00610000 rw-p 00200000 08:01 1234   /usr/bin/appwarden", rss: 4, anonymous: 4),
            mapping("00610000-00620000 ---p 00000000 00:00 0", rss: 0),
            mapping("00620000-00630000 rw-p 00000000 00:00 0      [heap]", rss: 4, anonymous: 4),
            mapping("7f0000000000-7f0000010000 rw-s 00000000 08:01 55 /var/lib/appwarden/appwarden.sqlite-shm", rss: 4),
            mapping("7ffc00000000-7ffc00001000 r-xp 00000000 00:00 0      [vdso]", rss: 4),
        ].joined()
        #expect(
            DaemonMemory.lockableMappings(smaps: smaps) == [
                .init(range: .init(start: 0x40_0000, end: 0x50_0000), writable: false),
                .init(range: .init(start: 0x50_0000, end: 0x60_0000), writable: true),
                .init(range: .init(start: 0x60_0000, end: 0x61_0000), writable: true),
                .init(range: .init(start: 0x62_0000, end: 0x63_0000), writable: true),
            ])
    }

    /// In a real process (this one): letting go of the start-up pages shrinks the file pages
    /// mapped, and the code runs on, its pages coming back as it runs.
    @Test func shedPagesComeBackAsTheCodeRuns() throws {
        let before = try #require(DaemonMemory.figures())
        let shed = try #require(DaemonMemory.shedStartUpPages())
        let after = try #require(DaemonMemory.figures())
        #expect(shed.mappings > 0)
        #expect(after.file < before.file, "no file page was let go: \(before) → \(after)")
        // The process still runs: relocated data was kept, code comes back on use.
        #expect(DaemonMemory.parse(statm: "1 2", pageSize: 4096) == 8192)
        #expect("\([1, 2, 3].map { $0 * 2 })" == "[2, 4, 6]")
    }

    /// `statm`'s second field is the resident memory in pages; a text without it is no figure.
    @Test func statmGivesTheResidentPages() {
        #expect(DaemonMemory.parse(statm: "9000 1234 300 20 0 800 0\n", pageSize: 4096) == 1234 * 4096)
        #expect(DaemonMemory.parse(statm: "9000 1234\n", pageSize: 16384) == 1234 * 16384)
        #expect(DaemonMemory.parse(statm: "9000", pageSize: 4096) == nil)
        #expect(DaemonMemory.parse(statm: "", pageSize: 4096) == nil)
    }
}

@Suite("The daemon's mappings cut into pages")
struct DaemonMemoryPageCutTests {
    /// A read-only private mapping of a file of `pages` pages the page cache holds (written
    /// just before), as the daemon's code is.
    private static func mappedFile(pages: Int) throws -> (range: DaemonMemory.MappingRange, unmap: () -> Void) {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pages-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try Data(repeating: 7, count: pages * pageSize).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        defer {
            close(descriptor)
            unlink(path)
        }
        let address = try #require(
            mmap(nil, pages * pageSize, PROT_READ, MAP_PRIVATE, descriptor, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        let start = UInt64(UInt(bitPattern: address))
        return (
            DaemonMemory.MappingRange(start: start, end: start + UInt64(pages * pageSize)),
            { _ = munmap(address, pages * pageSize) }
        )
    }

    /// Reads one byte of page `index` of `range`.
    private static func read(page index: Int, of range: DaemonMemory.MappingRange) -> UInt8 {
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let pointer = UnsafePointer<UInt8>(bitPattern: UInt(range.start + UInt64(index) * pageSize))!
        return pointer.pointee
    }

    /// How many mappings of /proc/self/maps lie in `range`.
    private static func mappings(in range: DaemonMemory.MappingRange) throws -> Int {
        try Syscalls.readText("/proc/self/maps").get().split(separator: "\n").count { line in
            let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { UInt64($0, radix: 16) }
            return bounds.count == 2 && bounds[0] >= range.start && bounds[1] <= range.end
        }
    }

    /// Cut into pages, a mapping holds only the pages read, not the kernel's fault-around
    /// window of neighbours; joined again, it is one mapping and keeps those pages.
    @Test func aCutMappingMapsOnlyThePagesRead() throws {
        let file = try Self.mappedFile(pages: 64)
        defer { file.unmap() }
        let cut = DaemonMemory.cutIntoPages([file.range])
        #expect(cut.ranges == [file.range])
        #expect(cut.pages == 64)
        #expect(try Self.mappings(in: file.range) == 64)
        #expect(Self.read(page: 5, of: file.range) == 7)
        #expect(Self.read(page: 40, of: file.range) == 7)
        let present = DaemonMemory.presentPages(of: file.range)
        #expect(present.count == 64)
        #expect(present.indices.filter { present[$0] } == [5, 40])
        DaemonMemory.joinPages(cut.ranges)
        #expect(try Self.mappings(in: file.range) == 1)
        let joined = DaemonMemory.presentPages(of: file.range)
        #expect(joined.indices.filter { joined[$0] } == [5, 40])
    }
}
