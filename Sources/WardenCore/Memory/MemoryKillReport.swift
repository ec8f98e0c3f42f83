/// Why the memory killer chose its victim (rule 9), for the journal and `explain`: the level
/// and figures of the moment, the victim's band and footprint, and the other candidates with the
/// reason each was passed over, in kill order: the first `listedLimit` of them, and how many more
/// there were (a device with a thousand apps would otherwise journal a thousand sentences per kill).
public struct MemoryKillReport: Sendable, Equatable {
    public var level: PressureLevel
    /// Nil when the level was reported directly (PSI, a scenario step) rather than measured.
    public var figures: MemoryFigures?
    public var band: KillBand
    /// The memory charged to the victim, bytes.
    public var footprint: Int64
    /// How much of `footprint` was in swap (compressed, or pushed out by the kernel), bytes: the
    /// kill frees that swap, but only the RAM a compressed copy takes.
    public var swapped: Int64
    /// What the kill gives back at once, bytes: the footprint's part in RAM and what its swapped
    /// part took of RAM (the figure rule 9 ranked by).
    public var reclaimable: Int64
    /// Set when the victim was chosen for growing into the room the last kill made, before the
    /// bands (rule 9, the culprit who takes the room).
    public var tookRoom: TookRoom?
    public var others: [PassedOver]
    /// The candidates after the first `listedLimit`, counted but not listed.
    public var unlisted: Int

    /// How many of the other candidates a report lists.
    public static let listedLimit = 20

    public init(
        level: PressureLevel, figures: MemoryFigures?, band: KillBand, footprint: Int64, swapped: Int64 = 0,
        reclaimable: Int64? = nil, tookRoom: TookRoom? = nil, others: [PassedOver], unlisted: Int = 0
    ) {
        self.level = level
        self.figures = figures
        self.band = band
        self.footprint = footprint
        self.swapped = swapped
        self.reclaimable = reclaimable ?? footprint
        self.tookRoom = tookRoom
        self.others = others
        self.unlisted = unlisted
    }

    /// How the victim grew into the room the last kill made.
    public struct TookRoom: Sendable, Equatable {
        /// How much its footprint grew since that kill, bytes.
        public var growth: Int64
        /// What that kill gave back at once, bytes.
        public var room: Int64
        /// The app whose kill made the room.
        public var madeBy: String

        public init(growth: Int64, room: Int64, madeBy: String) {
            self.growth = growth
            self.room = room
            self.madeBy = madeBy
        }

        /// "grew by 180MiB into the 200MiB the kill of \"b\" gave back"
        public var clause: String {
            "grew by \(DurationFormat.sizeString(growth)) into the \(DurationFormat.sizeString(room)) the kill of \"\(madeBy)\" gave back"
        }
    }

    /// A candidate that was not chosen, and why (`VictimRanking.whyNotChosen`).
    public struct PassedOver: Sendable, Equatable {
        public var app: String
        public var band: KillBand
        public var footprint: Int64
        /// What its kill would have given back at once, bytes.
        public var reclaimable: Int64
        public var reason: String

        /// `reclaimable` defaults to the whole footprint.
        public init(app: String, band: KillBand, footprint: Int64, reclaimable: Int64? = nil, reason: String) {
            self.app = app
            self.band = band
            self.footprint = footprint
            self.reclaimable = reclaimable ?? footprint
            self.reason = reason
        }
    }
}
