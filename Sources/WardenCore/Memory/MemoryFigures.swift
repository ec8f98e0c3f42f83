/// Available memory and the thresholds of one moment, bytes: for each level the threshold below
/// which it begins and the one at or above which it ends (enter/exit hysteresis), as `top`, the
/// log and `explain` give them: "warning below ENTER (ends at EXIT)".
public struct MemoryFigures: Sendable, Equatable {
    public var availableBytes: Int64
    public var totalBytes: Int64
    /// Below this, the level becomes warning.
    public var warningEnterBytes: Int64
    /// At or above this, a warning ends; nil in the journal entries of earlier daemons, which
    /// kept one threshold per level.
    public var warningExitBytes: Int64?
    /// Below this, the level becomes critical and the killer acts (a quarter of `critical_enter`
    /// while the kernel is taken to be still making room).
    public var criticalEnterBytes: Int64
    /// At or above this, critical ends and the killer stops; nil in the journal entries of
    /// earlier daemons.
    public var criticalExitBytes: Int64?
    /// What swap could still free besides `availableBytes`, on a device with swap; the level
    /// compares the two together with the thresholds.
    public var swapHeadroomBytes: Int64?
    /// The device's memory stall (PSI `full avg10`), in percent, where it was measured.
    public var stallPercent: Double?

    public init(
        availableBytes: Int64, totalBytes: Int64, warningEnterBytes: Int64, warningExitBytes: Int64?,
        criticalEnterBytes: Int64, criticalExitBytes: Int64?, swapHeadroomBytes: Int64? = nil,
        stallPercent: Double? = nil
    ) {
        self.availableBytes = availableBytes
        self.totalBytes = totalBytes
        self.warningEnterBytes = warningEnterBytes
        self.warningExitBytes = warningExitBytes
        self.criticalEnterBytes = criticalEnterBytes
        self.criticalExitBytes = criticalExitBytes
        self.swapHeadroomBytes = swapHeadroomBytes
        self.stallPercent = stallPercent
    }
}
