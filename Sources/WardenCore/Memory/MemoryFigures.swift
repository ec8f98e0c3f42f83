/// Available memory and the thresholds in force at one moment, bytes.
public struct MemoryFigures: Sendable, Equatable {
    public var availableBytes: Int64
    public var totalBytes: Int64
    /// Below this, the level becomes warning.
    public var warningBytes: Int64
    /// Below this, the level becomes critical and the killer acts.
    public var criticalBytes: Int64
    /// What swap could still free besides `availableBytes`, on a device with swap; the level
    /// compares the two together with the thresholds.
    public var swapHeadroomBytes: Int64?
    /// The device's memory stall (PSI `full avg10`), in percent, where it was measured.
    public var stallPercent: Double?

    public init(
        availableBytes: Int64, totalBytes: Int64, warningBytes: Int64, criticalBytes: Int64,
        swapHeadroomBytes: Int64? = nil, stallPercent: Double? = nil
    ) {
        self.availableBytes = availableBytes
        self.totalBytes = totalBytes
        self.warningBytes = warningBytes
        self.criticalBytes = criticalBytes
        self.swapHeadroomBytes = swapHeadroomBytes
        self.stallPercent = stallPercent
    }
}
