import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The daemon's own memory, kept where the killer needs it, as earlyoom, nohang and lmkd keep
/// theirs: locked in RAM (`mlockall`), so that measuring and killing never wait for the
/// daemon's own code or data to be read back from slow flash at the worst moment, and small by
/// giving free heap back (`malloc_trim`), never by unmapping code.
public enum DaemonMemory {
    /// The figures of `/proc/self/status` (and `/proc/self/smaps_rollup`) that say what the
    /// daemon holds, in bytes.
    public struct Figures: Sendable, Equatable {
        /// `VmRSS`: resident in all.
        public var resident: Int
        /// Resident and locked in RAM: `Locked` of `smaps_rollup` (Linux 4.14+). Where the rollup
        /// is missing, `VmLck` of `status`, which counts every locked mapping whole, touched or
        /// not (with `MCL_ONFAULT` that includes untouched heap arenas and the whole executable).
        public var locked: Int
        /// `RssAnon`: anonymous memory resident (heap, stacks): what the daemon costs the device.
        public var anonymous: Int
        /// `RssFile`: file pages resident (code, read-only data), shared with the page cache.
        public var file: Int
    }

    /// Locks every page the daemon has and will have (`mlockall(MCL_CURRENT | MCL_FUTURE |
    /// MCL_ONFAULT)`): pages are locked as they are first touched, so nothing that was never
    /// used is pulled in. Needs `CAP_IPC_LOCK` or a large enough `RLIMIT_MEMLOCK`.
    public static func lock() -> Result<Void, Errno> {
        let onFault: Int32 = 4  // MCL_ONFAULT, Linux 4.4+
        if mlockall(MCL_CURRENT | MCL_FUTURE | onFault) == 0 { return .success(()) }
        return .failure(.current)
    }

    /// What `shedStartUpPages()` did: the file mappings it let go of, and the resident memory
    /// before and after, in bytes.
    public struct Shed: Sendable, Equatable {
        public var mappings: Int
        public var residentBefore: Int
        public var residentAfter: Int
    }

    /// Lets go of the file pages start-up mapped (code and read-only data of the executable and
    /// its libraries, `madvise(MADV_DONTNEED)`: they stay in the page cache and come back on
    /// first use) and asks the kernel to map only the page a later fault needs in those mappings
    /// (`MADV_RANDOM`: no 64 KiB fault-around, no read-ahead), so that the lock that follows
    /// keeps what the daemon runs from then on, not everything start-up touched.
    ///
    /// Only mappings that are private, not writable and hold no page of their own
    /// (`Anonymous: 0` in `/proc/self/smaps`) are let go of: a relocated read-only page (RELRO)
    /// is the process's own copy, and dropping it would bring back the unrelocated file page.
    /// Call it before `lock()`; nil where `/proc/self/smaps` cannot be read.
    public static func shedStartUpPages() -> Shed? {
        guard let before = residentBytes(),
            case .success(let smaps) = Syscalls.readText("/proc/self/smaps")
        else { return nil }
        var count = 0
        for mapping in sheddableMappings(smaps: smaps) {
            guard let start = UnsafeMutableRawPointer(bitPattern: UInt(mapping.start)) else { continue }
            let length = Int(mapping.end - mapping.start)
            _ = madvise(start, length, Int32(MADV_RANDOM))
            if madvise(start, length, Int32(MADV_DONTNEED)) == 0 { count += 1 }
        }
        return Shed(mappings: count, residentBefore: before, residentAfter: residentBytes() ?? before)
    }

    /// An address range of `/proc/self/smaps`.
    public struct MappingRange: Sendable, Equatable {
        public var start: UInt64
        public var end: UInt64
    }

    /// The mappings of a `/proc/PID/smaps` text that `shedStartUpPages()` lets go of: backed by
    /// a file, private, readable but not writable, with some page resident and none of the
    /// process's own (`Anonymous: 0`), and not locked already.
    public static func sheddableMappings(smaps text: String) -> [MappingRange] {
        var result: [MappingRange] = []
        var current: (range: MappingRange, eligible: Bool, resident: Bool, anonymous: Bool, locked: Bool)?
        func finish() {
            if let current, current.eligible, current.resident, !current.anonymous, !current.locked {
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
