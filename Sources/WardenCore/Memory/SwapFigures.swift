/// What swap can still take on the device, and how much the device stalls on memory, as the
/// runtime measured them with a memory sample (`LifecycleEvent.memorySample`).
///
/// The level of a device with swap follows what could still be freed without killing: the
/// available memory plus what swap can still take of the anonymous memory in RAM, counted at
/// what it really frees (a page moved to zram still takes its compressed size of RAM), and it is
/// critical anyway when the device is short of memory and stalls on it (`MemorySettings.stallCritical`),
/// since swapping has then stopped being cheap.
public struct SwapFigures: Sendable, Hashable {
    /// Swap space left, in bytes.
    public var free: Int64
    /// Swap space in all, in bytes.
    public var total: Int64
    /// Anonymous memory in RAM that could be swapped out (`AnonPages`), in bytes.
    public var swappable: Int64
    /// How many bytes of swapped memory one byte of RAM holds where swap is compressed in RAM
    /// (zram: its data's size against the memory it uses, at least 1); nil for swap on a disk,
    /// which takes no RAM.
    public var compressionRatio: Double?
    /// The share of the last 10 s in which every task stalled on memory (PSI `full avg10` of
    /// the whole device), in percent; nil when the kernel does not say.
    public var stallPercent: Double?

    public init(
        free: Int64, total: Int64, swappable: Int64, compressionRatio: Double? = nil, stallPercent: Double? = nil
    ) {
        self.free = free
        self.total = total
        self.swappable = swappable
        self.compressionRatio = compressionRatio
        self.stallPercent = stallPercent
    }

    /// The compression assumed for zram before it holds enough to measure its own: 2, what
    /// lz4 and zstd give on typical app memory at the least.
    public static let assumedZramRatio = 2.0

    /// What swapping could still free, in bytes: the smaller of the swap left and the anonymous
    /// memory in RAM, less the RAM a compressed copy takes.
    public var headroom: Int64 {
        Self.freed(byMoving: min(free, swappable), compressionRatio: compressionRatio)
    }

    /// The figures once an app is gone that had `swapped` bytes in swap and `resident` bytes in
    /// RAM: its swap space is free again, and its memory in RAM is no longer there for swapping
    /// to move. What the kill adds to what swapping could still free is the `headroom` of the
    /// result less this one's: the room a kill of an app in a zram makes beside what it gives
    /// back at once, which swapping out the memory of others then takes.
    public func afterKill(swapped: Int64, resident: Int64) -> SwapFigures {
        var after = self
        after.free = min(total, free + max(0, swapped))
        after.swappable = max(0, swappable - max(0, resident))
        return after
    }

    /// What moving `bytes` of memory in RAM to swap frees: all of it for swap on a drive
    /// (`compressionRatio` nil), less the RAM the compressed copy takes in a zram.
    public static func freed(byMoving bytes: Int64, compressionRatio: Double?) -> Int64 {
        let movable = Double(max(0, bytes))
        guard let ratio = compressionRatio else { return Int64(movable) }
        return Int64(movable * (1 - 1 / max(1, ratio)))
    }
}
