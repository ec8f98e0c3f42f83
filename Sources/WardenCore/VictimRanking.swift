/// Rule 9: bands first-killed-first (suspended, idleBackground, backgroundWindow, backgroundTask,
/// foreground); inside a band the largest footprint first; ties: least recently used (older lastUsed)
/// first, then app name ascending. Protected apps never; foreground apps only if killForeground.
///
/// The order is total: two different candidates never tie, so the result does not depend on the
/// order in which the candidates are given. The memory killer of `Lifecycle` chooses its victims
/// with `victimIndex(among:killForeground:)` over its own records, so the order listed here is
/// the order in which apps are killed.
public enum VictimRanking {
    /// The whole order, first victim first.
    ///
    /// Candidates that may not be killed (protected apps, and foreground apps unless
    /// `killForeground`) are left out.
    public static func rank(_ candidates: [KillCandidate], killForeground: Bool) -> [KillCandidate] {
        candidates.filter { isEligible($0, killForeground: killForeground) }.sorted(by: precedes)
    }

    /// The first victim in O(n), without sorting; nil when nobody may be killed.
    public static func victim(among candidates: [KillCandidate], killForeground: Bool) -> KillCandidate? {
        victimIndex(among: candidates, killForeground: killForeground).map { candidates[$0] }
    }

    /// Whether the killer may choose `candidate` at all.
    public static func isEligible(_ candidate: KillCandidate, killForeground: Bool) -> Bool {
        isEligible(band: candidate.band, isProtected: candidate.isProtected, killForeground: killForeground)
    }

    /// Whether `first` is killed before `second`: lower band, then larger footprint, then
    /// less recently used, then app name ascending.
    public static func precedes(_ first: KillCandidate, _ second: KillCandidate) -> Bool {
        precedes(first, second, firstBand: first.band, secondBand: second.band)
    }

    /// The index of the first victim among `candidates`, in one pass without sorting or
    /// allocating; nil when nobody may be killed. The one place the victim is chosen: `victim`
    /// (for candidate lists) and the killer (over the running apps' records) both call it.
    @inline(__always)
    static func victimIndex<Candidates: Collection>(
        among candidates: Candidates, killForeground: Bool
    ) -> Candidates.Index? where Candidates.Element: KillRankable {
        var best: Candidates.Index?
        var bestBand = KillBand.foreground
        for index in candidates.indices {
            // Fields are read in place: no copy of the candidate, so no reference counting of
            // names in the loop; a name is only compared when everything else ties.
            let band = candidates[index].band
            guard isEligible(band: band, isProtected: candidates[index].isProtected, killForeground: killForeground)
            else { continue }
            guard let current = best else {
                best = index
                bestBand = band
                continue
            }
            if precedes(candidates[index], candidates[current], firstBand: band, secondBand: bestBand) {
                best = index
                bestBand = band
            }
        }
        return best
    }

    /// Protected apps never; foreground apps only when `killForeground`.
    @inline(__always)
    static func isEligible(band: KillBand, isProtected: Bool, killForeground: Bool) -> Bool {
        !isProtected && (band != .foreground || killForeground)
    }

    /// `precedes` with the bands already known, so that a scan computes each band once.
    @inline(__always)
    static func precedes<Candidate: KillRankable>(
        _ first: Candidate, _ second: Candidate, firstBand: KillBand, secondBand: KillBand
    ) -> Bool {
        if firstBand != secondBand { return firstBand < secondBand }
        if first.footprint != second.footprint { return first.footprint > second.footprint }
        if first.lastUsed != second.lastUsed { return first.lastUsed < second.lastUsed }
        return first.app < second.app
    }
}

/// What rule 9 reads of an app: `KillCandidate` for lists, `AppRecord` for the killer itself.
protocol KillRankable {
    var app: String { get }
    var band: KillBand { get }
    /// What a kill would give back, bytes.
    var footprint: Int64 { get }
    var lastUsed: Instant { get }
    var isProtected: Bool { get }
}

extension KillCandidate: KillRankable {}

extension AppRecord: KillRankable {
    var app: String { name }
}
