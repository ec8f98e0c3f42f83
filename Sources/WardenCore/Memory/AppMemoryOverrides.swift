/// An app's own memory bounds (`[apps.NAME.memory]`), each overriding the global `[memory]`
/// setting of the same name when set.
public struct AppMemoryOverrides: Sendable, Equatable {
    /// `foreground_limit`: the most the app may hold in the foreground.
    public var foregroundLimit: MemoryThreshold?
    /// `background_limit`: the most the app may hold in background or suspended.
    public var backgroundLimit: MemoryThreshold?
    /// `fair_share`: above it, the app is killed first under critical pressure.
    public var fairShare: MemoryThreshold?
    /// `compress_suspended`: whether the app's memory is pushed to swap once it is frozen.
    public var compressSuspended: Bool?

    public init(
        foregroundLimit: MemoryThreshold? = nil, backgroundLimit: MemoryThreshold? = nil,
        fairShare: MemoryThreshold? = nil, compressSuspended: Bool? = nil
    ) {
        self.foregroundLimit = foregroundLimit
        self.backgroundLimit = backgroundLimit
        self.fairShare = fairShare
        self.compressSuspended = compressSuspended
    }
}
