/// The order of the suspended band under critical pressure (rule 9, `[memory] kill_order`).
///
/// Every other band, the culprit who takes the room (`Lifecycle.roomTaker`) and the fair share
/// keep their rules under either order.
public enum KillOrder: String, Sendable, Equatable, CaseIterable {
    /// The app whose kill gives back the most first (`KillCandidate.reclaimable`): rule 9 as the
    /// contract states it, and the built-in order.
    case largest
    /// The app whose kill gives back the most for what losing it costs first: its reclaimable
    /// bytes divided by its `KillCandidate.missCost`, the weight of the person's recent opens of
    /// it times the size its next launch must bring back. An app the person never opened costs
    /// nothing to lose and goes first; ties keep `largest`'s order.
    case leastMissed = "least_missed"

    /// The values a policy may give, as it spells them.
    public static var spellings: [String] { allCases.map(\.rawValue) }

    /// The age at which an open weighs half in `openWeight(of:at:)`: an hour, so an app opened a
    /// few times in the last hour weighs a few opens, and one opened this morning next to nothing
    /// by the evening.
    public static let openHalfLife: Duration = .seconds(3_600)

    /// How many of its last opens by the person an app remembers (`AppRecord.userOpens`).
    public static let keptOpens = 8

    /// The weight of `opens` at `now`: an open counts 1 when it happens, 1/2 at the age of
    /// `openHalfLife`, 1/3 at twice that, 1/(1 + age/openHalfLife) in general; the weights add up,
    /// so recent and frequent opens both weigh.
    public static func openWeight(of opens: [Instant]?, at now: Instant) -> Double {
        guard let opens else { return 0 }
        let halfLife = openHalfLife.inSeconds
        var weight = 0.0
        for open in opens {
            let age = max(0, (now - open).inSeconds)
            weight += 1 / (1 + age / halfLife)
        }
        return weight
    }
}
