/// Memory limits for one app's group, in bytes; nil means no limit.
public struct MemoryLimits: Sendable, Hashable {
    /// The hard limit (`memory.max` on v2, `memory.limit_in_bytes` on v1).
    public var max: UInt64?
    /// The throttling limit (`memory.high` on v2, `memory.soft_limit_in_bytes` on v1).
    public var high: UInt64?

    /// Makes limits; both default to none.
    public init(max: UInt64? = nil, high: UInt64? = nil) {
        self.max = max
        self.high = high
    }
}
