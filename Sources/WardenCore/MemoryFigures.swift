/// Available memory and the thresholds in force at one moment, bytes.
public struct MemoryFigures: Sendable, Equatable {
    public var availableBytes: Int64
    public var totalBytes: Int64
    /// Below this, the level becomes warning.
    public var warningBytes: Int64
    /// Below this, the level becomes critical and the killer acts.
    public var criticalBytes: Int64

    public init(availableBytes: Int64, totalBytes: Int64, warningBytes: Int64, criticalBytes: Int64) {
        self.availableBytes = availableBytes
        self.totalBytes = totalBytes
        self.warningBytes = warningBytes
        self.criticalBytes = criticalBytes
    }
}
