/// One app's memory bounds in bytes: its own `[apps.NAME.memory]` settings over the global
/// `[memory]` ones, and its `memory_max` and `memory_high`, resolved against the device's
/// memory (a percentage means nothing until the device's memory is known).
struct MemoryBounds: Sendable, Equatable {
    /// The most the app may hold in the foreground (`foreground_limit`).
    var foregroundLimit: Int64?
    /// The most the app may hold in background or suspended (`background_limit`).
    var backgroundLimit: Int64?
    /// The hard limit of the app's group in every state (`memory_max`).
    var max: Int64?
    /// The throttling limit of the app's group (`memory_high`).
    var high: Int64?
    /// Above this footprint the app goes first under critical pressure (`fair_share`).
    var fairShare: Int64?

    init() {}

    init(app: AppPolicy, global: MemorySettings, deviceTotal: Int64?) {
        func resolve(_ threshold: MemoryThreshold?) -> Int64? {
            switch threshold {
            case nil: nil
            case .bytes(let bytes): bytes
            case .percent: deviceTotal.map { threshold!.bytes(ofTotal: $0) }
            }
        }
        foregroundLimit = resolve(app.memory.foregroundLimit ?? global.foregroundLimit)
        backgroundLimit = resolve(app.memory.backgroundLimit ?? global.backgroundLimit)
        fairShare = resolve(app.memory.fairShare ?? global.fairShare)
        max = app.memoryMax
        high = app.memoryHigh
    }

    /// The limit in force for an app in the foreground or not, and the setting it comes from
    /// (`foreground_limit`, `background_limit` or `memory_max`, whichever is lower); nil when
    /// none applies.
    func limit(inForeground: Bool) -> (bytes: Int64, setting: String)? {
        let state =
            inForeground
            ? foregroundLimit.map { ($0, "foreground_limit") } : backgroundLimit.map { ($0, "background_limit") }
        guard let max else { return state }
        guard let state, state.0 < max else { return (max, "memory_max") }
        return state
    }
}

/// The limits of an app's group, in bytes, as the core hands them to the runtime
/// (`LifecycleAction.setMemoryLimits`): `memory.max` and `memory.high` on cgroup v2.
public struct GroupMemoryLimits: Sendable, Hashable {
    /// The hard limit; nil for none.
    public var max: Int64?
    /// The throttling limit; nil for none.
    public var high: Int64?

    public init(max: Int64?, high: Int64?) {
        self.max = max
        self.high = high
    }

    /// Whether the group has no limit at all.
    public var isEmpty: Bool { max == nil && high == nil }
}
