/// A candidate for the memory-pressure killer (rule 9).
public struct KillCandidate: Sendable, Equatable {
    public var app: String
    public var band: KillBand
    /// What a kill would give back (anon + shmem + swap), bytes.
    public var footprint: Int64
    /// The last time the app was in the foreground (its launch time if never); older = less recently used.
    public var lastUsed: Instant
    public var isProtected: Bool
    /// Whether the app is in the foreground (inactive or active); `kill_foreground = false`
    /// keeps such an app from the killer, whatever its band.
    public var isInForeground: Bool

    /// A candidate; `isInForeground` defaults to whether `band` is the foreground band.
    public init(
        app: String, band: KillBand, footprint: Int64, lastUsed: Instant, isProtected: Bool,
        isInForeground: Bool? = nil
    ) {
        self.app = app
        self.band = band
        self.footprint = footprint
        self.lastUsed = lastUsed
        self.isProtected = isProtected
        self.isInForeground = isInForeground ?? (band == .foreground)
    }
}
