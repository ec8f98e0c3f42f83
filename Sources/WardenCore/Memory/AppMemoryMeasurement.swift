/// One app's memory as the runtime measures it, in bytes: what the core's memory watch decides
/// on (`Lifecycle.sampleEvents(available:total:swap:measuring:)`).
public struct AppMemoryMeasurement: Sendable, Equatable {
    /// The memory charged to the app: anonymous memory, shmem and swap.
    public var footprint: Int64
    /// The part of the footprint in swap now.
    public var swapped: Int64
    /// The RAM the swapped part takes (compressed in a zram, none on a drive); nil when not known.
    public var swappedInRAM: Int64?

    public init(footprint: Int64, swapped: Int64, swappedInRAM: Int64? = nil) {
        self.footprint = footprint
        self.swapped = swapped
        self.swappedInRAM = swappedInRAM
    }
}
