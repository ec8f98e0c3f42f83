/// Reads what one byte in swap takes of RAM on the host now (`SwapDevices.inRAMShare`): from
/// `/proc/swaps` and the `mm_stat` of each zram device, kept open between reads (a zram device
/// that appears later is opened when `/proc/swaps` first lists it).
///
/// `root` is prefixed to both paths ("" for the host), so that tests can point the reader at a
/// fixture tree. Not thread-safe: one owner reads it.
public final class SwapRAMShareReader: @unchecked Sendable {
    private let root: String
    private let swaps: KeptOpenFile
    private var zramStats: [String: KeptOpenFile] = [:]

    /// Makes a reader of the files under `root`; nothing is opened yet.
    public init(root: String = "") {
        self.root = root
        self.swaps = KeptOpenFile(path: root + "/proc/swaps", capacity: 4096)
    }

    /// The share of a swapped byte held in RAM, weighted by each device's use; nil when
    /// `/proc/swaps` cannot be read. A zram device whose `mm_stat` cannot be read counts at
    /// `assumedZramRatio`.
    public func share(assumedZramRatio: Double) -> Double? {
        guard let text = swaps.readText() else { return nil }
        let devices = SwapDevices.parse(text)
        var stats: [String: ZramStat] = [:]
        for name in devices.anyZramNames {
            let file = zramStats[name] ?? KeptOpenFile(path: root + "/sys/block/\(name)/mm_stat", capacity: 256)
            zramStats[name] = file
            if let stat = file.readText().flatMap(SwapDevices.zramStat) { stats[name] = stat }
        }
        return devices.inRAMShare(zram: stats, assumedZramRatio: assumedZramRatio)
    }
}
