/// The swap devices of the host, from `/proc/swaps`, and what zram says of its compression.
///
/// A zram device keeps swapped pages compressed in RAM: `mm_stat` gives the size of the data it
/// holds (`orig_data_size`), its compressed size (`compr_data_size`) and the memory all that
/// takes (`mem_used_total`). Their ratios say how much a page moved there really frees, and how
/// much RAM a swapped page still takes until its app is killed. Swap on a drive takes no RAM.
public struct SwapDevices: Sendable, Equatable {
    /// One line of `/proc/swaps`.
    public struct Device: Sendable, Equatable {
        /// The device or file, such as `/dev/zram0` or `/swapfile`.
        public var path: String
        /// `partition` or `file`.
        public var type: String
        /// Its size and the part in use, in bytes (`/proc/swaps` counts KiB).
        public var size: UInt64
        public var used: UInt64

        public init(path: String, type: String = "partition", size: UInt64 = 0, used: UInt64 = 0) {
            self.path = path
            self.type = type
            self.size = size
            self.used = used
        }

        /// The zram device's name (`zram0`); nil for swap on a drive.
        public var zramName: String? {
            guard let name = path.split(separator: "/").last, name.hasPrefix("zram") else { return nil }
            return String(name)
        }
    }

    /// The swap devices, in `/proc/swaps` order.
    public var devices: [Device]

    public init(devices: [Device]) {
        self.devices = devices
    }

    /// Devices known by their paths only (nothing in use).
    public init(paths: [String]) {
        self.devices = paths.map { Device(path: $0) }
    }

    /// The swap devices' paths, in `/proc/swaps` order.
    public var paths: [String] { devices.map(\.path) }

    /// Parses `/proc/swaps` ("Filename Type Size Used Priority", one device a line, sizes in
    /// KiB). A line whose figures cannot be read keeps its path, with nothing in use.
    public static func parse(_ text: String) -> SwapDevices {
        var devices: [Device] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let path = fields.first else { continue }
            func kibibytes(_ index: Int) -> UInt64 {
                index < fields.count ? (UInt64(fields[index]) ?? 0) << 10 : 0
            }
            devices.append(
                Device(
                    path: String(path), type: fields.count > 1 ? String(fields[1]) : "", size: kibibytes(2),
                    used: kibibytes(3)))
        }
        return SwapDevices(devices: devices)
    }

    /// The zram devices' names (`zram0`), when every swap device is one; nil when there is no
    /// swap, or some is on a disk (which takes no RAM).
    public var zramNames: [String]? {
        guard !devices.isEmpty else { return nil }
        var names: [String] = []
        for device in devices {
            guard let name = device.zramName else { return nil }
            names.append(name)
        }
        return names
    }

    /// The names of the zram devices among the swap devices, whatever the others are.
    public var anyZramNames: [String] { devices.compactMap(\.zramName) }

    /// `orig_data_size` and `mem_used_total`, the first and third figures of a zram device's
    /// `mm_stat`; nil when the text holds fewer.
    public static func zramUsage(mmStat text: String) -> (data: UInt64, memory: UInt64)? {
        zramStat(mmStat: text).map { ($0.original, $0.memoryUsed) }
    }

    /// The first three figures of a zram device's `mm_stat`; nil when the text holds fewer.
    public static func zramStat(mmStat text: String) -> ZramStat? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { UInt64($0) }
        guard fields.count >= 3 else { return nil }
        return ZramStat(original: fields[0], compressed: fields[1], memoryUsed: fields[2])
    }

    /// How much RAM one byte in swap takes, over all the swap devices, weighted by use: each
    /// zram device counts its compressed size against the data it holds (`compr_data_size` /
    /// `orig_data_size`; before it holds any, 1/`assumedZramRatio`), a device on a drive 0, and
    /// each device weighs by the swap it has in use (`/proc/swaps` Used), since an app's swapped
    /// pages lie where swap is used. With nothing in use, each weighs by its size. 0 without swap.
    ///
    /// The compressed size, not `mem_used_total`: a kill frees its app's compressed pages at
    /// once, while the allocator's overhead comes back only as zram compacts.
    ///
    /// - Parameter zram: `mm_stat` of each zram device by name; a zram device missing here
    ///   counts at the assumed ratio.
    public func inRAMShare(zram: [String: ZramStat], assumedZramRatio: Double) -> Double {
        let used = devices.reduce(UInt64(0)) { $0 &+ $1.used }
        var weights: UInt64 = 0
        var share = 0.0
        for device in devices {
            let weight = used > 0 ? device.used : device.size
            guard weight > 0 else { continue }
            weights &+= weight
            guard let name = device.zramName else { continue }
            let deviceShare: Double
            if let stat = zram[name], stat.original > 0 {
                deviceShare = min(1, Double(stat.compressed) / Double(stat.original))
            } else {
                deviceShare = 1 / max(1, assumedZramRatio)
            }
            share += deviceShare * Double(weight)
        }
        return weights > 0 ? share / Double(weights) : 0
    }

    /// What `swapped` bytes of an app take of RAM at `share` (`inRAMShare`).
    public static func swappedInRAM(_ swapped: UInt64, share: Double) -> UInt64 {
        min(swapped, UInt64((Double(swapped) * max(0, min(1, share))).rounded()))
    }
}
