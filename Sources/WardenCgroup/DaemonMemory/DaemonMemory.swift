import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's own memory, kept where the killer needs it, as earlyoom, nohang and lmkd keep
/// theirs: locked in RAM (`mlock`), so that measuring and killing never wait for the
/// daemon's own code or data to be read back from slow flash at the worst moment; and small by
/// locking only what it runs (`lockTouchedPages`) and giving back free heap (`malloc_trim`)
/// and the code it does not run.
public enum DaemonMemory {
    /// The figures of `/proc/self/status` (and `/proc/self/smaps_rollup`) that say what the
    /// daemon holds, in bytes.
    public struct Figures: Sendable, Equatable {
        /// `VmRSS`: resident in all.
        public var resident: Int
        /// Resident and locked in RAM: `Locked` of `smaps_rollup` (Linux 4.14+). Where the rollup
        /// is missing, `VmLck` of `status`, which counts every locked mapping whole, touched or
        /// not (with `MLOCK_ONFAULT` that includes untouched heap arenas).
        public var locked: Int
        /// `RssAnon`: anonymous memory resident (heap, stacks): what the daemon costs the device.
        public var anonymous: Int
        /// `RssFile`: file pages resident (code, read-only data), shared with the page cache.
        public var file: Int
    }

    /// What `lockTouchedPages()` locked, and the ranges of code and read-only data it left
    /// unlocked, which `shed(_:)` lets go of when the daemon is idle.
    public struct LockedPages: Sendable, Equatable {
        /// Bytes of code and read-only data locked: the pages touched so far.
        public var fileBytes: Int
        /// Writable and anonymous mappings locked as they are touched (heap, stacks, data).
        public var writableMappings: Int
        /// The unlocked parts of the clean, read-only file mappings.
        public var unlocked: [MappingRange]
    }

    /// Locks what the daemon has run so far and its writable memory, and nothing else: in each
    /// clean read-only file mapping (code and read-only data of the executable and its
    /// libraries), the pages mapped now (`/proc/self/pagemap`), with gaps of up to
    /// `gapPages` pages between them locked too, so that the mapping is cut in few pieces; every
    /// writable or anonymous mapping (heap, stacks, data) as its pages are touched
    /// (`mlock2(MLOCK_ONFAULT)`). Called after the boot and the rehearsed kill, it keeps in RAM
    /// what measuring and killing run, and lets the kernel have back the code only start-up or
    /// a rare request ran. Mappings made later (a new thread's stack, a new heap arena) are not
    /// locked.
    public static func lockTouchedPages(gapPages: Int = 2) -> Result<LockedPages, Errno> {
        guard case .success(let smaps) = Syscalls.readText("/proc/self/smaps") else { return .failure(.current) }
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return .failure(.current) }
        defer { close(pagemap) }
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        var locked = LockedPages(fileBytes: 0, writableMappings: 0, unlocked: [])
        var firstError: Errno?
        for mapping in lockableMappings(smaps: smaps) {
            let length = Int(mapping.range.end - mapping.range.start)
            guard let start = UnsafeMutableRawPointer(bitPattern: UInt(mapping.range.start)) else { continue }
            if mapping.writable {
                let status = warden_mlock_on_fault(start, length)
                if status == 0 {
                    locked.writableMappings += 1
                } else {
                    firstError = firstError ?? Errno(rawValue: status)
                }
                continue
            }
            let present = presentPages(of: mapping.range, pagemap: pagemap, pageSize: pageSize)
            let runs = lockRuns(present: present, gapPages: gapPages)
            var cursor = mapping.range.start
            for run in runs {
                let runStart = mapping.range.start + UInt64(run.lowerBound) * pageSize
                let runEnd = mapping.range.start + UInt64(run.upperBound) * pageSize
                if runStart > cursor { locked.unlocked.append(MappingRange(start: cursor, end: runStart)) }
                cursor = runEnd
                if mlock(UnsafeRawPointer(bitPattern: UInt(runStart)), Int(runEnd - runStart)) == 0 {
                    locked.fileBytes += Int(runEnd - runStart)
                } else {
                    firstError = firstError ?? .current
                }
            }
            if cursor < mapping.range.end {
                locked.unlocked.append(MappingRange(start: cursor, end: mapping.range.end))
            }
        }
        if let firstError, locked.fileBytes == 0, locked.writableMappings == 0 { return .failure(firstError) }
        return .success(locked)
    }

    /// Lets go of the pages mapped in `ranges` (`madvise(MADV_DONTNEED)`): the unlocked parts of
    /// clean read-only file mappings, as `lockTouchedPages()` gives them. Their pages stay in
    /// the page cache and come back on first use. Returns the resident bytes before and after.
    public static func shed(_ ranges: [MappingRange]) -> (before: Int, after: Int)? {
        guard let before = residentBytes() else { return nil }
        for range in ranges {
            guard let start = UnsafeMutableRawPointer(bitPattern: UInt(range.start)) else { continue }
            _ = madvise(start, Int(range.end - range.start), Int32(MADV_DONTNEED))
        }
        return (before, residentBytes() ?? before)
    }

    /// A mapping `lockTouchedPages()` locks: a clean read-only file mapping (locked where it is
    /// mapped), or a writable or anonymous one (locked as it is touched).
    public struct LockableMapping: Sendable, Equatable {
        public var range: MappingRange
        public var writable: Bool
    }

    /// The mappings of a `/proc/PID/smaps` text that `lockTouchedPages()` locks: every readable
    /// mapping but shared ones, device and kernel ones (`[vvar]`, `[vdso]`, `[vsyscall]`) and
    /// files mapped by a library for itself (the journal's shared memory); the clean
    /// read-only file mappings (`sheddableMappings`) among them marked as not writable.
    public static func lockableMappings(smaps text: String) -> [LockableMapping] {
        let clean = Set(sheddableMappings(smaps: text, includingUnmapped: true).map(\.start))
        var result: [LockableMapping] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first, first.last != ":", fields.count >= 5,
                let dash = first.firstIndex(of: "-"), let start = UInt64(first[..<dash], radix: 16),
                let end = UInt64(first[first.index(after: dash)...], radix: 16)
            else { continue }
            let permissions = fields[1]
            let path = fields.count >= 6 ? fields[5] : ""
            guard permissions.hasPrefix("r"), permissions.last == "p",
                path.isEmpty || path.hasPrefix("/") || path == "[heap]" || path.hasPrefix("[stack")
            else { continue }
            let isClean = clean.contains(start)
            if !isClean, path.hasPrefix("/"), permissions.dropFirst().first == "-" {
                // A read-only file mapping with pages of its own (relocated data): locked whole
                // as touched, like writable data.
                result.append(LockableMapping(range: MappingRange(start: start, end: end), writable: true))
                continue
            }
            result.append(LockableMapping(range: MappingRange(start: start, end: end), writable: !isClean))
        }
        return result
    }

    /// Which pages of `range` are mapped (present or swapped) in this process, from
    /// `/proc/self/pagemap`; empty where it cannot be read.
    public static func presentPages(of range: MappingRange) -> [Bool] {
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { return [] }
        defer { close(pagemap) }
        return presentPages(of: range, pagemap: pagemap, pageSize: UInt64(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// Which pages of `range` are mapped (present or swapped) in this process, from
    /// `/proc/self/pagemap`.
    private static func presentPages(of range: MappingRange, pagemap: Int32, pageSize: UInt64) -> [Bool] {
        let count = Int((range.end - range.start) / pageSize)
        var entries = [UInt64](repeating: 0, count: count)
        let offset = off_t(range.start / pageSize * 8)
        let read = entries.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, $0.count, offset) }
        guard read == count * 8 else { return [] }
        return entries.map { $0 & (3 << 62) != 0 }
    }

    /// The runs of page indexes to lock, given which pages are mapped: each run of mapped pages,
    /// joined with the next when no more than `gapPages` unmapped pages lie between them.
    public static func lockRuns(present: [Bool], gapPages: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var index = 0
        while index < present.count {
            guard present[index] else {
                index += 1
                continue
            }
            var end = index + 1
            while end < present.count, present[end] { end += 1 }
            if let last = runs.last, index - last.upperBound <= gapPages {
                runs[runs.count - 1] = last.lowerBound..<end
            } else {
                runs.append(index..<end)
            }
            index = end
        }
        return runs
    }

    /// What `shedStartUpPages(cuttingIntoPages:)` did: the file mappings it let go of, the
    /// resident memory before and after, in bytes, and the mappings it cut into pages.
    public struct Shed: Sendable, Equatable {
        public var mappings: Int
        public var residentBefore: Int
        public var residentAfter: Int
        /// The clean read-only file mappings cut into one mapping per page, for
        /// `joinPages(_:)` to join again; empty when none was cut.
        public var cut: [MappingRange] = []
        /// The pages cut apart.
        public var cutPages = 0
    }

    /// Lets go of the file pages start-up mapped (code and read-only data of the executable and
    /// its libraries, `madvise(MADV_DONTNEED)`: they stay in the page cache and come back on
    /// first use), so that the lock that follows (`lockTouchedPages()`) keeps what the daemon
    /// runs from then on, not everything start-up touched.
    ///
    /// Only mappings that are private, not writable and hold no page of their own
    /// (`Anonymous: 0` in `/proc/self/smaps`) are let go of: a relocated read-only page (RELRO)
    /// is the process's own copy, and dropping it would bring back the unrelocated file page.
    /// Call it before `lockTouchedPages()`; nil where `/proc/self/smaps` cannot be read.
    ///
    /// With `cuttingIntoPages`, those mappings are first cut into one mapping per page (every
    /// other page marked `MADV_RANDOM`, so that no two neighbours merge): at each page fault
    /// the kernel maps up to 16 neighbouring pages the page cache holds (its fault-around), but
    /// never beyond the mapping, so until `joinPages(_:)` the pages mapped are the pages read,
    /// and the lock keeps those alone instead of 64 KiB around each. Cutting stops, leaving the
    /// rest whole, when the kernel refuses more mappings (`vm.max_map_count`).
    public static func shedStartUpPages(cuttingIntoPages: Bool = false) -> Shed? {
        guard let before = residentBytes(),
            case .success(let smaps) = Syscalls.readText("/proc/self/smaps")
        else { return nil }
        let mappings = sheddableMappings(smaps: smaps, includingUnmapped: cuttingIntoPages)
        let cut = cuttingIntoPages ? cutIntoPages(mappings) : (ranges: [], pages: 0)
        var count = 0
        for mapping in mappings {
            guard let start = UnsafeMutableRawPointer(bitPattern: UInt(mapping.start)) else { continue }
            let length = Int(mapping.end - mapping.start)
            if madvise(start, length, Int32(MADV_DONTNEED)) == 0 { count += 1 }
        }
        return Shed(
            mappings: count, residentBefore: before, residentAfter: residentBytes() ?? before, cut: cut.ranges,
            cutPages: cut.pages)
    }

    /// Cuts each of `ranges` (parts of clean read-only file mappings) into one mapping per
    /// page, marking every other page `MADV_RANDOM` so that no two neighbours merge; stops where
    /// the kernel refuses more mappings (`vm.max_map_count`). Returns the ranges cut, for
    /// `joinPages(_:)`, and how many pages they hold.
    public static func cutIntoPages(_ ranges: [MappingRange]) -> (ranges: [MappingRange], pages: Int) {
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        var cut: [MappingRange] = []
        var pages = 0
        for range in ranges {
            var page = range.start + pageSize
            while page < range.end {
                guard let address = UnsafeMutableRawPointer(bitPattern: UInt(page)),
                    madvise(address, Int(pageSize), Int32(MADV_RANDOM)) == 0
                else {
                    cut.append(MappingRange(start: range.start, end: page))
                    return (cut, pages + Int((page - range.start) / pageSize))
                }
                page += 2 * pageSize
            }
            cut.append(range)
            pages += Int((range.end - range.start) / pageSize)
        }
        return (cut, pages)
    }

    /// Joins the mappings `shedStartUpPages(cuttingIntoPages: true)` cut into pages
    /// (`MADV_NORMAL` over each: the kernel merges the neighbours again). The pages mapped
    /// meanwhile stay mapped, so `lockTouchedPages()` after it finds the pages that were read.
    public static func joinPages(_ ranges: [MappingRange]) {
        for range in ranges {
            guard let start = UnsafeMutableRawPointer(bitPattern: UInt(range.start)) else { continue }
            _ = madvise(start, Int(range.end - range.start), Int32(MADV_NORMAL))
        }
    }

    /// An address range of `/proc/self/smaps`.
    public struct MappingRange: Sendable, Equatable {
        public var start: UInt64
        public var end: UInt64
    }

    /// The mappings of a `/proc/PID/smaps` text that `shedStartUpPages()` lets go of: backed by
    /// a file, private, readable but not writable, with some page resident and none of the
    /// process's own (`Anonymous: 0`), and not locked already.
    public static func sheddableMappings(smaps text: String, includingUnmapped: Bool = false) -> [MappingRange] {
        var result: [MappingRange] = []
        var current: (range: MappingRange, eligible: Bool, resident: Bool, anonymous: Bool, locked: Bool)?
        func finish() {
            if let current, current.eligible, current.resident || includingUnmapped, !current.anonymous,
                !current.locked
            {
                result.append(current.range)
            }
        }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.last != ":", fields.count >= 5, let dash = first.firstIndex(of: "-"),
                let start = UInt64(first[..<dash], radix: 16),
                let end = UInt64(first[first.index(after: dash)...], radix: 16)
            {
                finish()
                let permissions = fields[1]
                let inode = fields[4]
                let path = fields.count >= 6 ? fields[5] : ""
                let eligible =
                    inode != "0" && path.hasPrefix("/") && permissions.hasPrefix("r")
                    && permissions.dropFirst().first == "-" && permissions.last == "p"
                current = (MappingRange(start: start, end: end), eligible, false, false, false)
                continue
            }
            guard current != nil, fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
            switch first {
            case "Rss:": current?.resident = kilobytes > 0
            case "Anonymous:": current?.anonymous = kilobytes > 0
            case "Locked:": current?.locked = kilobytes > 0
            default: break
            }
        }
        finish()
        return result
    }

    /// The major page faults this process has taken so far (`getrusage(RUSAGE_SELF)`,
    /// `ru_majflt`): each one a wait for a page read back from storage.
    public static func majorFaults() -> Int {
        var usage = rusage()
        let ofSelf: Int32 = 0  // RUSAGE_SELF, spelt as Glibc and Musl both take it
        guard getrusage(ofSelf, &usage) == 0 else { return 0 }
        return usage.ru_majflt
    }

    /// Gives free heap memory back to the kernel (`malloc_trim(0)`); returns the resident
    /// memory before and after (`residentBytes()`).
    public static func trimHeap() -> (before: Int, after: Int)? {
        guard let before = residentBytes() else { return nil }
        _ = warden_malloc_trim()
        return (before, residentBytes() ?? before)
    }

    /// This process's resident memory, from `/proc/self/statm`: the kernel's counters, read
    /// without the walk of every mapping that `smaps_rollup` takes (about 2 ms for the daemon
    /// with its code locked, twice per quiet spell when the trim read it).
    public static func residentBytes() -> Int? {
        guard case .success(let text) = Syscalls.readText("/proc/self/statm") else { return nil }
        return parse(statm: text, pageSize: Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The resident bytes of a `/proc/PID/statm` text (its second field, in pages of
    /// `pageSize` bytes).
    public static func parse(statm text: String, pageSize: Int) -> Int? {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * pageSize
    }

    /// This process's figures, from `/proc/self/status` and `/proc/self/smaps_rollup`.
    public static func figures() -> Figures? {
        figures(ofProcessDirectory: "/proc/self")
    }

    /// The figures of the process whose `/proc` directory is `directory` (`/proc/PID`).
    public static func figures(ofProcessDirectory directory: String) -> Figures? {
        guard case .success(let status) = Syscalls.readText(directory + "/status") else { return nil }
        return parse(status: status, rollup: try? Syscalls.readText(directory + "/smaps_rollup").get())
    }

    /// The figures of a `/proc/PID/status` text and, where there is one, its `smaps_rollup`
    /// text; nil when `VmRSS` is missing.
    public static func parse(status: String, rollup: String? = nil) -> Figures? {
        let values = kilobyteFields(status)
        guard let resident = values["VmRSS"] else { return nil }
        let locked = rollup.flatMap { kilobyteFields($0)["Locked"] } ?? values["VmLck"] ?? 0
        return Figures(
            resident: resident, locked: locked, anonymous: values["RssAnon"] ?? 0, file: values["RssFile"] ?? 0)
    }

    /// The `Key: N kB` lines of a `/proc` text, in bytes.
    private static func kilobyteFields(_ text: String) -> [Substring: Int] {
        var values: [Substring: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let key = fields.first, key.hasSuffix(":"), let kilobytes = Int(fields[1]) else {
                continue
            }
            values[key.dropLast()] = kilobytes * 1024
        }
        return values
    }
}
