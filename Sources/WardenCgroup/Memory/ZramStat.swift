/// The figures of a zram device's `mm_stat` that say what its data takes, in bytes.
public struct ZramStat: Sendable, Equatable {
    /// `orig_data_size`: the data stored, uncompressed.
    public var original: UInt64
    /// `compr_data_size`: the data stored, compressed.
    public var compressed: UInt64
    /// `mem_used_total`: the memory the device takes, the allocator's overhead included.
    public var memoryUsed: UInt64

    public init(original: UInt64, compressed: UInt64, memoryUsed: UInt64) {
        self.original = original
        self.compressed = compressed
        self.memoryUsed = memoryUsed
    }
}
