/// A byte-level reader of `memory.stat` for sampling sweeps: it picks out the few keys the
/// statistics need without building strings or dictionaries.
///
/// `MemoryStatistics.unified` and `.v1` stay the reference parsers; this one gives the same
/// figures and is tested against them.
enum MemoryStatScanner {
    /// The figures of one `memory.stat`.
    struct Figures: Equatable {
        var anon: UInt64 = 0
        var file: UInt64 = 0
        var shmem: UInt64 = 0
        var swap: UInt64 = 0
        var kernel: UInt64 = 0
    }

    private static let unifiedKeys: [[UInt8]] = ["anon", "file", "shmem", "kernel"].map { Array($0.utf8) }
    private static let unifiedKernelParts: [[UInt8]] =
        ["kernel_stack", "pagetables", "percpu", "sock", "slab"].map { Array($0.utf8) }
    private static let v1Keys: [[UInt8]] =
        ["total_rss", "total_cache", "total_shmem", "total_swap"].map { Array($0.utf8) }

    /// Scans `bytes` (the text of a cgroup2 `memory.stat`, or a v1 one when `unified` is false).
    ///
    /// Returns nil when a required key (`anon`, `file`, `shmem` on v2; `total_rss`, `total_cache`
    /// on v1) is missing or a value of interest is not a number.
    static func scan(_ bytes: UnsafeRawBufferPointer, unified: Bool) -> Figures? {
        var figures = Figures()
        var found = [false, false, false, false]
        var kernelParts: UInt64 = 0
        let keys = unified ? unifiedKeys : v1Keys
        var lineStart = 0
        let count = bytes.count
        while lineStart < count {
            var space = lineStart
            while space < count && bytes[space] != UInt8(ascii: " ") && bytes[space] != UInt8(ascii: "\n") {
                space += 1
            }
            var end = space
            while end < count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            let key = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<space])
            var index: Int?
            for (candidate, wanted) in keys.enumerated() where wanted.count == key.count && key.elementsEqual(wanted) {
                index = candidate
            }
            let isKernelPart =
                unified && index == nil
                && unifiedKernelParts.contains { $0.count == key.count && key.elementsEqual($0) }
            if index != nil || isKernelPart {
                guard space < end, let value = number(bytes, from: space + 1, to: end) else { return nil }
                if let index {
                    found[index] = true
                    switch index {
                    case 0: figures.anon = value
                    case 1: figures.file = value
                    case 2: figures.shmem = value
                    default: if unified { figures.kernel = value } else { figures.swap = value }
                    }
                } else {
                    kernelParts += value
                }
            }
            lineStart = end + 1
        }
        if unified {
            guard found[0], found[1], found[2] else { return nil }
            if !found[3] { figures.kernel = kernelParts }
        } else {
            guard found[0], found[1] else { return nil }
            // v1 counts shmem inside the cache; file is the cache without it.
            figures.file = figures.file >= figures.shmem ? figures.file - figures.shmem : 0
        }
        return figures
    }

    private static func number(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> UInt64? {
        guard start < end else { return nil }
        var value: UInt64 = 0
        for position in start..<end {
            let byte = bytes[position]
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (multiplied, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = multiplied.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = added
        }
        return value
    }
}
