import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Gives back the memory an idle daemon holds without using it: free heap pages
/// (`malloc_trim`), and the page-table entries of code mapped from files (the executable, the
/// Swift runtime, Foundation) that start-up, launches and requests touched.
///
/// The kernel maps file pages around every page touched (fault-around), so a daemon that ran
/// its start-up once keeps tens of MiB of code mapped that it will not run again. Unmapping
/// them changes nothing the daemon computes: a page it runs again is mapped again from the
/// page cache on first touch. Only code is unmapped: private, executable and not writable
/// mappings of files, whose pages are never written, so always the file's own. Read-only data
/// is left alone, since relocated data shares those permissions once relocated, and telling
/// the two apart would take `/proc/self/smaps`, ten times dearer to read.
public enum ResidentMemoryTrim {
    /// What a trim gave back.
    public struct Outcome: Sendable, Equatable {
        /// `VmRSS` before and after, in bytes.
        public var before: Int
        public var after: Int
        /// How many mappings were unmapped.
        public var mappings: Int
    }

    /// Trims this process; nil where `/proc/self/maps` cannot be read.
    public static func trim() -> Outcome? {
        guard let before = residentBytes(), let maps = readAll("/proc/self/maps") else { return nil }
        _ = warden_malloc_trim()
        var unmapped = 0
        for mapping in codeMappings(maps: maps) {
            guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(start, mapping.end - mapping.start, MADV_DONTNEED) == 0 { unmapped += 1 }
        }
        return Outcome(before: before, after: residentBytes() ?? before, mappings: unmapped)
    }

    /// A line of `/proc/PID/maps`.
    public struct Mapping: Equatable, Sendable {
        public var start: Int
        public var end: Int
        public var permissions: Substring
        public var inode: Int
        public var path: Substring

        /// Code from a file: private, readable, executable, never writable.
        public var isCode: Bool {
            permissions == "r-xp" && inode != 0 && path.first == "/"
        }
    }

    /// The mappings of a maps text that hold code from files.
    public static func codeMappings(maps: String) -> [Mapping] {
        parse(maps: maps).filter(\.isCode)
    }

    /// Every mapping of a maps text.
    public static func parse(maps: String) -> [Mapping] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-") ?? []
            guard fields.count >= 5, range.count == 2, let start = Int(range[0], radix: 16),
                let end = Int(range[1], radix: 16), let inode = Int(fields[4])
            else { return nil }
            let path = fields.count == 6 ? fields[5].drop(while: { $0 == " " }) : ""
            return Mapping(start: start, end: end, permissions: fields[1], inode: inode, path: path)
        }
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
