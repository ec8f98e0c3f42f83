import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Gives back the memory an idle daemon holds without using it: free heap pages
/// (`malloc_trim`), and the page-table entries of code and read-only data mapped from files
/// (the executable, the Swift runtime, Foundation) that start-up, launches and requests touched.
///
/// The kernel maps file pages around every page touched (fault-around), so a daemon that ran
/// its start-up once keeps tens of MiB of code mapped that it will not run again. Unmapping
/// them changes nothing the daemon computes: a page it runs again is mapped again from the
/// page cache on first touch. Only mappings that cannot have been written are unmapped:
/// private, without write permission, backed by a file, and holding no anonymous (copied)
/// page, which rules out relocated data.
public enum ResidentMemoryTrim {
    /// What a trim gave back.
    public struct Outcome: Sendable, Equatable {
        /// `VmRSS` before and after, in bytes.
        public var before: Int
        public var after: Int
        /// How many mappings were unmapped.
        public var mappings: Int
    }

    /// Trims this process; nil where `/proc/self/smaps` cannot be read.
    public static func trim() -> Outcome? {
        guard let before = residentBytes(), let smaps = readAll("/proc/self/smaps") else { return nil }
        _ = warden_malloc_trim()
        var unmapped = 0
        for mapping in readOnlyFileMappings(smaps: smaps) {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(start, mapping.end - mapping.start, MADV_DONTNEED) == 0 { unmapped += 1 }
        }
        return Outcome(before: before, after: residentBytes() ?? before, mappings: unmapped)
    }

    /// A mapping of `/proc/PID/smaps`: its address range and what the trim looks at.
    public struct Mapping: Equatable, Sendable {
        public var start: Int
        public var end: Int
        public var permissions: Substring
        public var inode: Int
        public var path: Substring
        public var resident = 0
        public var anonymous = 0
        public var locked = 0

        /// Private, never writable, from a file, resident, with no page copied: its pages are
        /// the file's, and unmapping them loses nothing.
        public var isUnmappable: Bool {
            permissions.count == 4 && !permissions.contains("w") && permissions.last == "p" && inode != 0
                && path.first == "/" && resident > 0 && anonymous == 0 && locked == 0
        }
    }

    /// The mappings of an smaps text that can be unmapped.
    public static func readOnlyFileMappings(smaps: String) -> [Mapping] {
        parse(smaps: smaps).filter(\.isUnmappable)
    }

    /// Every mapping of an smaps text.
    public static func parse(smaps: String) -> [Mapping] {
        var mappings: [Mapping] = []
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.last == ":" {
                guard !mappings.isEmpty, fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
                switch first {
                case "Rss:": mappings[mappings.count - 1].resident = kilobytes * 1024
                case "Anonymous:": mappings[mappings.count - 1].anonymous = kilobytes * 1024
                case "Locked:": mappings[mappings.count - 1].locked = kilobytes * 1024
                default: break
                }
                continue
            }
            let range = first.split(separator: "-")
            guard fields.count >= 5, range.count == 2, let start = Int(range[0], radix: 16),
                let end = Int(range[1], radix: 16), let inode = Int(fields[4])
            else { continue }
            mappings.append(
                Mapping(
                    start: start, end: end, permissions: fields[1], inode: inode,
                    path: fields.count >= 6 ? fields[5] : ""))
        }
        return mappings
    }

    /// `VmRSS` of this process in bytes.
    public static func residentBytes() -> Int? {
        guard let status = readAll("/proc/self/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// The whole text of a `/proc` file (whose size `stat` does not give).
    private static func readAll(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
