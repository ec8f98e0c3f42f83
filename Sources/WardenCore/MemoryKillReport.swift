/// Why the memory killer chose its victim (rule 9), for the journal and `explain`: the level
/// and figures of the moment, the victim's band and footprint, and every other candidate with
/// the reason it was passed over, in kill order.
public struct MemoryKillReport: Sendable, Equatable {
    public var level: PressureLevel
    /// Nil when the level was reported directly (PSI, a scenario step) rather than measured.
    public var figures: MemoryFigures?
    public var band: KillBand
    /// What the kill gives back, bytes.
    public var footprint: Int64
    public var others: [PassedOver]

    public init(level: PressureLevel, figures: MemoryFigures?, band: KillBand, footprint: Int64, others: [PassedOver]) {
        self.level = level
        self.figures = figures
        self.band = band
        self.footprint = footprint
        self.others = others
    }

    /// A candidate that was not chosen, and why (`VictimRanking.whyNotChosen`).
    public struct PassedOver: Sendable, Equatable {
        public var app: String
        public var band: KillBand
        public var footprint: Int64
        public var reason: String

        public init(app: String, band: KillBand, footprint: Int64, reason: String) {
            self.app = app
            self.band = band
            self.footprint = footprint
            self.reason = reason
        }
    }
}
