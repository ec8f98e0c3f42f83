/// A candidate for the memory-pressure killer (rule 9).
public struct KillCandidate: Sendable, Equatable {
    public var app: String
    public var band: KillBand
    /// The memory charged to the app (anon + shmem + swap), bytes.
    public var footprint: Int64
    /// What a kill gives back at once, bytes: the footprint's part in RAM and what its swapped
    /// part takes of RAM (its compressed size in a zram, nothing on a drive). Rule 9 ranks by it.
    public var reclaimable: Int64
    /// How much of the footprint is in swap, bytes.
    public var swapped: Int64
    /// The last time the app was in the foreground (its launch time if never); older = less recently used.
    public var lastUsed: Instant
    public var isProtected: Bool
    /// Whether the app is in the foreground (inactive or active); `kill_foreground = false`
    /// keeps such an app from the killer, whatever its band.
    public var isInForeground: Bool
    /// The weight of the person's recent opens of the app (`KillOrder.openWeight`): each open
    /// counts 1, less as it ages. Read only under `kill_order = "least_missed"`.
    public var openWeight: Double
    /// The size the app's next launch is expected to bring back, bytes (its
    /// `LaunchMemoryHistory.expected`, else its footprint). Read only under `least_missed`.
    public var relaunchSize: Int64

    /// What losing the app costs under `kill_order = "least_missed"`: the weight of its recent
    /// opens times its relaunch size in bytes.
    public var missCost: Double { openWeight * Double(relaunchSize) }

    /// A candidate; `reclaimable` defaults to the whole footprint (nothing in swap),
    /// `isInForeground` to whether `band` is the foreground band.
    public init(
        app: String, band: KillBand, footprint: Int64, swapped: Int64 = 0, reclaimable: Int64? = nil,
        lastUsed: Instant, isProtected: Bool, isInForeground: Bool? = nil, openWeight: Double = 0,
        relaunchSize: Int64 = 0
    ) {
        self.swapped = swapped
        self.app = app
        self.band = band
        self.footprint = footprint
        self.reclaimable = reclaimable ?? footprint
        self.lastUsed = lastUsed
        self.isProtected = isProtected
        self.isInForeground = isInForeground ?? (band == .foreground)
        self.openWeight = openWeight
        self.relaunchSize = relaunchSize
    }
}
