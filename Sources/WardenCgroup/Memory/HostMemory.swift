/// The host's memory figures from `/proc/meminfo`, in bytes.
public struct HostMemory: Sendable, Hashable {
    /// `MemTotal`: usable RAM.
    public var total: UInt64
    /// `MemAvailable`: what can be allocated without swapping, the figure pressure levels use.
    public var available: UInt64
    /// `SwapTotal`: swap space, 0 without swap.
    public var swapTotal: UInt64
    /// `SwapFree`: unused swap space.
    public var swapFree: UInt64
    /// `AnonPages`: anonymous memory in RAM, what swap could take.
    public var anon: UInt64

    /// Makes host figures from their parts.
    public init(total: UInt64, available: UInt64, swapTotal: UInt64 = 0, swapFree: UInt64 = 0, anon: UInt64 = 0) {
        self.total = total
        self.available = available
        self.swapTotal = swapTotal
        self.swapFree = swapFree
        self.anon = anon
    }

    /// Parses the text of `/proc/meminfo` ("MemTotal:  24731708 kB" lines).
    ///
    /// - Throws: `CgroupError` with code `malformed` when `MemTotal` or `MemAvailable` is missing
    ///   or a line of interest is not a number of kB.
    public static func parse(_ text: String, path: String = "/proc/meminfo") throws(CgroupError) -> HostMemory {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(CgroupError) in try parse(bytes: UnsafeRawBufferPointer(bytes), path: path) }
        }.get()
    }

    /// Parses the bytes of `/proc/meminfo` without allocating: the memory watch reads them
    /// many times a second near a threshold.
    ///
    /// - Throws: `CgroupError` with code `malformed` as `parse(_:path:)`.
    public static func parse(bytes: UnsafeRawBufferPointer, path: String = "/proc/meminfo") throws(CgroupError)
        -> HostMemory
    {
        var figures: (total: UInt64?, available: UInt64?, swapTotal: UInt64?, swapFree: UInt64?, anon: UInt64?)
        var lineStart = 0
        var lineNumber = 0
        while lineStart < bytes.count {
            lineNumber += 1
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            guard let key = Key(line) else { continue }
            guard let value = Self.kilobytes(afterColonIn: line) else {
                throw .malformed(
                    "line \(lineNumber) (\"\(String(decoding: line, as: UTF8.self))\")", path: path,
                    detail: "expected \"\(key.name): NUMBER kB\"")
            }
            switch key {
            case .total: figures.total = value
            case .available: figures.available = value
            case .swapTotal: figures.swapTotal = value
            case .swapFree: figures.swapFree = value
            case .anon: figures.anon = value
            }
            if figures.total != nil, figures.available != nil, figures.swapTotal != nil, figures.swapFree != nil,
                figures.anon != nil
            {
                break
            }
        }
        guard let total = figures.total else {
            throw .malformed("memory figures", path: path, detail: "the key \"MemTotal\" is missing")
        }
        guard let available = figures.available else {
            throw .malformed("memory figures", path: path, detail: "the key \"MemAvailable\" is missing")
        }
        return HostMemory(
            total: total, available: available, swapTotal: figures.swapTotal ?? 0, swapFree: figures.swapFree ?? 0,
            anon: figures.anon ?? 0)
    }

    /// The keys of `/proc/meminfo` that are read.
    private enum Key {
        case total, available, swapTotal, swapFree, anon

        /// The key a line starts with ("MemTotal:"), if it is one of these.
        init?(_ line: UnsafeRawBufferPointer) {
            for key in [Key.total, .available, .swapTotal, .swapFree, .anon] where key.matches(line) {
                self = key
                return
            }
            return nil
        }

        var name: StaticString {
            switch self {
            case .total: "MemTotal"
            case .available: "MemAvailable"
            case .swapTotal: "SwapTotal"
            case .swapFree: "SwapFree"
            case .anon: "AnonPages"
            }
        }

        private func matches(_ line: UnsafeRawBufferPointer) -> Bool {
            let name = UnsafeRawBufferPointer(start: self.name.utf8Start, count: self.name.utf8CodeUnitCount)
            guard line.count > name.count, line[name.count] == UInt8(ascii: ":") else { return false }
            return line.prefix(name.count).elementsEqual(name)
        }
    }

    /// The figure after the colon of a line: "NUMBER kB" in bytes, or a bare NUMBER as is; nil
    /// when it is anything else.
    private static func kilobytes(afterColonIn line: UnsafeRawBufferPointer) -> UInt64? {
        guard var index = line.firstIndex(of: UInt8(ascii: ":")).map({ $0 + 1 }) else { return nil }
        while index < line.count && (line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t")) {
            index += 1
        }
        var value: UInt64 = 0
        var digits = 0
        while index < line.count, line[index] >= UInt8(ascii: "0"), line[index] <= UInt8(ascii: "9") {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(line[index] - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        while index < line.count && (line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t")) {
            index += 1
        }
        if index == line.count { return value }
        let unit = UnsafeRawBufferPointer(rebasing: line[index...])
        guard unit.count == 2, unit[0] == UInt8(ascii: "k"), unit[1] == UInt8(ascii: "B") else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: 1024)
        return overflow ? nil : bytes
    }

    /// Reads and parses `/proc/meminfo`, or the file at `path`.
    public static func read(path: String = "/proc/meminfo") throws(CgroupError) -> HostMemory {
        switch Syscalls.readText(path) {
        case .success(let text): return try parse(text, path: path)
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }
}
