/// The swap devices of the host, from `/proc/swaps`, and what zram says of its compression.
///
/// A zram device keeps swapped pages compressed in RAM: `mm_stat` gives the size of the data it
/// holds (`orig_data_size`) and the memory that takes (`mem_used_total`), whose ratio says how
/// much a page moved there really frees.
public struct SwapDevices: Sendable, Equatable {
    /// The swap devices' paths, in `/proc/swaps` order.
    public var paths: [String]

    public init(paths: [String]) {
        self.paths = paths
    }

    /// Parses `/proc/swaps` ("Filename Type Size Used Priority", one device a line).
    public static func parse(_ text: String) -> SwapDevices {
        var paths: [String] = []
        for line in text.split(separator: "\n").dropFirst() {
            if let path = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first { paths.append(String(path)) }
        }
        return SwapDevices(paths: paths)
    }

    /// The zram devices' names (`zram0`), when every swap device is one; nil when there is no
    /// swap, or some is on a disk (which takes no RAM).
    public var zramNames: [String]? {
        guard !paths.isEmpty else { return nil }
        var names: [String] = []
        for path in paths {
            guard let name = path.split(separator: "/").last, name.hasPrefix("zram") else { return nil }
            names.append(String(name))
        }
        return names
    }

    /// `orig_data_size` and `mem_used_total`, the first and third figures of a zram device's
    /// `mm_stat`; nil when the text holds fewer.
    public static func zramUsage(mmStat text: String) -> (data: UInt64, memory: UInt64)? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { UInt64($0) }
        guard fields.count >= 3 else { return nil }
        return (fields[0], fields[2])
    }
}
