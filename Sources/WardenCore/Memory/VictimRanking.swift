/// Rule 9: bands first-killed-first (overFairShare, suspended, idleBackground, backgroundWindow,
/// backgroundTask, activity, foreground); inside a band the app whose kill gives back the most first (its
/// memory in RAM and what its swapped pages take of RAM, `KillCandidate.reclaimable`); ties: least recently used (older lastUsed)
/// first, then app name ascending. Protected apps never; foreground apps only if killForeground.
///
/// The order is total: two different candidates never tie, so the result does not depend on the
/// order in which the candidates are given. The memory killer of `Lifecycle` chooses its victims
/// with `victimIndex(among:killForeground:)` over its own records, so the order listed here is
/// the order in which apps are killed, except that an app that grew into the room the last kill
/// made goes before it (`Lifecycle.roomTaker(killForeground:)`).
public enum VictimRanking {
    /// The whole order, first victim first.
    ///
    /// Candidates that may not be killed (protected apps, and foreground apps unless
    /// `killForeground`) are left out.
    public static func rank(_ candidates: [KillCandidate], killForeground: Bool) -> [KillCandidate] {
        candidates.filter { isEligible($0, killForeground: killForeground) }.sorted(by: precedes)
    }

    /// The first `count` of `rank(candidates, killForeground:)`, without sorting the rest: one
    /// pass that keeps the `count` first seen so far in order (a kill report lists 20 of a
    /// thousand apps).
    public static func first(_ count: Int, of candidates: [KillCandidate], killForeground: Bool) -> [KillCandidate] {
        let indices = candidates.withUnsafeBufferPointer {
            firstIndices(count, among: $0, killForeground: killForeground)
        }
        return indices.map { candidates[$0] }
    }

    /// The indices of the first `count` candidates in kill order, in one pass that keeps the
    /// `count` first seen so far in order; the killer's report reads its records in place
    /// through it, and copies only the few it lists.
    static func firstIndices<Candidates: Collection>(
        _ count: Int, among candidates: Candidates, killForeground: Bool
    ) -> [Candidates.Index] where Candidates.Element: KillRankable {
        guard count > 0 else { return [] }
        var kept: [Candidates.Index] = []
        kept.reserveCapacity(count + 1)
        for index in candidates.indices {
            let band = candidates[index].band
            guard
                isEligible(
                    isInForeground: candidates[index].isInForeground, isProtected: candidates[index].isProtected,
                    killForeground: killForeground)
            else { continue }
            let reclaimable = candidates[index].reclaimable
            let lastUsed = candidates[index].lastUsed
            func precedes(_ other: Candidates.Index) -> Bool {
                Self.precedes(
                    band: band, reclaimable: reclaimable, lastUsed: lastUsed, app: candidates[index].app,
                    before: candidates[other].band, reclaimable: candidates[other].reclaimable,
                    lastUsed: candidates[other].lastUsed, app: candidates[other].app)
            }
            if kept.count == count, let last = kept.last, !precedes(last) { continue }
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(kept[middle]) { high = middle } else { low = middle + 1 }
            }
            kept.insert(index, at: low)
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }

    /// The first victim in O(n), without sorting; nil when nobody may be killed.
    public static func victim(among candidates: [KillCandidate], killForeground: Bool) -> KillCandidate? {
        // The scan reads the candidates through their buffer: the array's own subscript would
        // copy (and so retain) each candidate it reads.
        let index = candidates.withUnsafeBufferPointer {
            victimIndex(among: $0, killForeground: killForeground)
        }
        return index.map { candidates[$0] }
    }

    /// Why the killer took `victim` rather than `candidate`, in words: the first rule of the
    /// order that tells them apart (protection, the foreground rule, band, what a kill gives
    /// back, last use, name).
    public static func whyNotChosen(_ candidate: KillCandidate, victim: KillCandidate, killForeground: Bool) -> String {
        if candidate.isProtected { return "protected by the policy, never killed" }
        if !isEligible(candidate, killForeground: killForeground) {
            return "in the foreground, killed only with kill_foreground = true"
        }
        if candidate.band != victim.band {
            if victim.band == .overFairShare {
                return "in the \(candidate.band) band, within its fair share; an app over its fair share goes first"
            }
            return "in the \(candidate.band) band, killed after the \(victim.band) band"
        }
        if candidate.reclaimable != victim.reclaimable {
            return
                "its kill gives back less (\(DurationFormat.sizeString(candidate.reclaimable)) against \(DurationFormat.sizeString(victim.reclaimable))) in the same band"
        }
        if candidate.lastUsed != victim.lastUsed {
            return "used more recently, in the same band, and its kill gives back as much"
        }
        return "same band, as much given back by its kill and the same last use; its name sorts after \"\(victim.app)\""
    }

    /// Whether the killer may choose `candidate` at all.
    public static func isEligible(_ candidate: KillCandidate, killForeground: Bool) -> Bool {
        isEligible(
            isInForeground: candidate.isInForeground, isProtected: candidate.isProtected, killForeground: killForeground
        )
    }

    /// Whether `first` is killed before `second`: lower band, then more given back by a kill,
    /// then less recently used, then app name ascending.
    public static func precedes(_ first: KillCandidate, _ second: KillCandidate) -> Bool {
        precedes(
            band: first.band, reclaimable: first.reclaimable, lastUsed: first.lastUsed, app: first.app,
            before: second.band, reclaimable: second.reclaimable, lastUsed: second.lastUsed, app: second.app)
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
            guard
                isEligible(
                    isInForeground: candidates[index].isInForeground, isProtected: candidates[index].isProtected,
                    killForeground: killForeground)
            else { continue }
            guard let current = best else {
                best = index
                bestBand = band
                continue
            }
            if precedes(
                band: band, reclaimable: candidates[index].reclaimable, lastUsed: candidates[index].lastUsed,
                app: candidates[index].app, before: bestBand, reclaimable: candidates[current].reclaimable,
                lastUsed: candidates[current].lastUsed, app: candidates[current].app)
            {
                best = index
                bestBand = band
            }
        }
        return best
    }

    /// Protected apps never; foreground apps only when `killForeground`.
    @inline(__always)
    static func isEligible(isInForeground: Bool, isProtected: Bool, killForeground: Bool) -> Bool {
        !isProtected && (!isInForeground || killForeground)
    }

    /// `precedes` on the fields: the one comparison of rule 9. The names are read only when
    /// everything else ties, so a scan reading them in place does not copy them.
    @inline(__always)
    static func precedes(
        band: KillBand, reclaimable: Int64, lastUsed: Instant, app: @autoclosure () -> String,
        before otherBand: KillBand, reclaimable otherReclaimable: Int64, lastUsed otherLastUsed: Instant,
        app otherApp: @autoclosure () -> String
    ) -> Bool {
        if band != otherBand { return band < otherBand }
        if reclaimable != otherReclaimable { return reclaimable > otherReclaimable }
        if lastUsed != otherLastUsed { return lastUsed < otherLastUsed }
        return app() < otherApp()
    }
}

/// What rule 9 reads of an app: `KillCandidate` for lists, `AppRecord` for the killer itself.
protocol KillRankable {
    var app: String { get }
    var band: KillBand { get }
    /// The memory charged to the app, bytes.
    var footprint: Int64 { get }
    /// How much of it is in swap, bytes.
    var swapped: Int64 { get }
    /// What a kill gives back at once, bytes: the figure the order compares.
    var reclaimable: Int64 { get }
    var lastUsed: Instant { get }
    var isProtected: Bool { get }
    /// Whether the app is in the foreground (inactive or active), where `kill_foreground = false` keeps it.
    var isInForeground: Bool { get }
}

extension KillCandidate: KillRankable {}

extension AppRecord: KillRankable {
    var app: String { name }
    var swapped: Int64 { swappedBytes }
}
