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

    /// Makes host figures from their parts.
    public init(total: UInt64, available: UInt64, swapTotal: UInt64 = 0, swapFree: UInt64 = 0) {
        self.total = total
        self.available = available
        self.swapTotal = swapTotal
        self.swapFree = swapFree
    }

    /// Parses the text of `/proc/meminfo` ("MemTotal:  24731708 kB" lines).
    ///
    /// - Throws: `CgroupError` with code `malformed` when `MemTotal` or `MemAvailable` is missing
    ///   or a line of interest is not a number of kB.
    public static func parse(_ text: String, path: String = "/proc/meminfo") throws(CgroupError) -> HostMemory {
        var values: [Substring: UInt64] = [:]
        let wanted: Set<Substring> = ["MemTotal", "MemAvailable", "SwapTotal", "SwapFree"]
        for (index, line) in text.split(separator: "\n").enumerated() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            guard wanted.contains(key) else { continue }
            let rest = line[line.index(after: colon)...].split(separator: " ")
            guard let number = rest.first.flatMap({ UInt64($0) }), rest.count <= 2, rest.count == 1 || rest[1] == "kB"
            else {
                throw .malformed(
                    "line \(index + 1) (\"\(line)\")", path: path, detail: "expected \"\(key): NUMBER kB\"")
            }
            values[key] = rest.count == 2 ? number * 1024 : number
        }
        guard let total = values["MemTotal"] else {
            throw .malformed("memory figures", path: path, detail: "the key \"MemTotal\" is missing")
        }
        guard let available = values["MemAvailable"] else {
            throw .malformed("memory figures", path: path, detail: "the key \"MemAvailable\" is missing")
        }
        return HostMemory(
            total: total, available: available, swapTotal: values["SwapTotal"] ?? 0, swapFree: values["SwapFree"] ?? 0)
    }

    /// Reads and parses `/proc/meminfo`, or the file at `path`.
    public static func read(path: String = "/proc/meminfo") throws(CgroupError) -> HostMemory {
        switch Syscalls.readText(path) {
        case .success(let text): return try parse(text, path: path)
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }
}
