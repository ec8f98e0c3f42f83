/// Rule 9: bands first-killed-first (overFairShare, suspended, idleBackground, backgroundWindow,
/// backgroundTask, activity, foreground); inside a band the app whose kill gives back the most first (its
/// memory in RAM and what its swapped pages take of RAM, `KillCandidate.reclaimable`); ties: least recently used (older lastUsed)
/// first, then app name ascending. Under `kill_order = "least_missed"` (`KillOrder.leastMissed`)
/// the suspended band first puts the app whose kill gives back the most per unit of
/// `KillCandidate.missCost` first, and falls back on that order for ties. Protected apps never; foreground apps only if killForeground.
///
/// The order is total: two different candidates never tie, so the result does not depend on the
/// order in which the candidates are given. The memory killer of `Lifecycle` chooses its victims
/// with `victimIndex(among:killForeground:)` over its own records, so the order listed here is
/// the order in which apps are killed, except that an app that grew into the room the last kill
/// made goes before it (`Lifecycle.roomTaker(killForeground:)`), and that room before a launch
/// takes an app whose kill alone covers it before apps of its band that would need two kills
/// (`Lifecycle.makeRoomForLaunch`).
public enum VictimRanking {
    /// The whole order, first victim first.
    ///
    /// Candidates that may not be killed (protected apps, and foreground apps unless
    /// `killForeground`) are left out.
    public static func rank(
        _ candidates: [KillCandidate], killForeground: Bool, order: KillOrder = .largest
    ) -> [KillCandidate] {
        candidates.filter { isEligible($0, killForeground: killForeground) }.sorted {
            precedes($0, $1, order: order)
        }
    }

    /// The first `count` of `rank(candidates, killForeground:)`, without sorting the rest: one
    /// pass that keeps the `count` first seen so far in order (a kill report lists 20 of a
    /// thousand apps).
    public static func first(
        _ count: Int, of candidates: [KillCandidate], killForeground: Bool, order: KillOrder = .largest
    ) -> [KillCandidate] {
        let indices = candidates.withUnsafeBufferPointer {
            firstIndices(count, among: $0, killForeground: killForeground, order: order)
        }
        return indices.map { candidates[$0] }
    }

    /// The indices of the first `count` candidates in kill order, in one pass that keeps the
    /// `count` first seen so far in order; the killer's report reads its records in place
    /// through it, and copies only the few it lists.
    static func firstIndices<Candidates: Collection>(
        _ count: Int, among candidates: Candidates, killForeground: Bool, order: KillOrder = .largest
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
            let missCost = candidates[index].missCost
            func precedes(_ other: Candidates.Index) -> Bool {
                Self.precedes(
                    band: band, reclaimable: reclaimable, missCost: missCost, lastUsed: lastUsed,
                    app: candidates[index].app, before: candidates[other].band,
                    reclaimable: candidates[other].reclaimable, missCost: candidates[other].missCost,
                    lastUsed: candidates[other].lastUsed, app: candidates[other].app, order: order)
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
    public static func victim(
        among candidates: [KillCandidate], killForeground: Bool, order: KillOrder = .largest
    ) -> KillCandidate? {
        // The scan reads the candidates through their buffer: the array's own subscript would
        // copy (and so retain) each candidate it reads.
        let index = candidates.withUnsafeBufferPointer {
            victimIndex(among: $0, killForeground: killForeground, order: order)
        }
        return index.map { candidates[$0] }
    }

    /// Why the killer took `victim` rather than `candidate`, in words: the first rule of the
    /// order that tells them apart (protection, the foreground rule, band, under `least_missed`
    /// in the suspended band what a kill gives back for what losing the app costs, what a kill
    /// gives back, last use, name).
    public static func whyNotChosen(
        _ candidate: KillCandidate, victim: KillCandidate, killForeground: Bool, order: KillOrder = .largest
    ) -> String {
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
        if order == .leastMissed, candidate.band == .suspended,
            comparesMisses(candidate.reclaimable, candidate.missCost, victim.reclaimable, victim.missCost) != nil
        {
            return
                "missed more (kill_order = \"least_missed\"): its kill gives back \(missTerms(candidate)), where the kill of \"\(victim.app)\" gives back \(missTerms(victim))"
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

    /// Whether `first` is killed before `second`: lower band, then, under `least_missed` in the
    /// suspended band, more given back by a kill for what losing the app costs, then more given
    /// back by a kill, then less recently used, then app name ascending.
    public static func precedes(_ first: KillCandidate, _ second: KillCandidate, order: KillOrder = .largest) -> Bool {
        precedes(
            band: first.band, reclaimable: first.reclaimable, missCost: first.missCost, lastUsed: first.lastUsed,
            app: first.app, before: second.band, reclaimable: second.reclaimable, missCost: second.missCost,
            lastUsed: second.lastUsed, app: second.app, order: order)
    }

    /// "300MiB for a relaunch of 310MiB and opens weighing 0.1": the terms of `least_missed`.
    static func missTerms(_ candidate: KillCandidate) -> String {
        let tenths = Int((candidate.openWeight * 10).rounded())
        let opens = tenths == 0 ? "no recent opens" : "opens weighing \(tenths / 10).\(tenths % 10)"
        return
            "\(DurationFormat.sizeString(candidate.reclaimable)) for a relaunch of \(DurationFormat.sizeString(candidate.relaunchSize)) and \(opens)"
    }

    /// Under `least_missed`: whether an app whose kill gives back `reclaimable` and whose loss
    /// costs `missCost` goes before another (true), after it (false), or neither (nil): the one
    /// whose kill gives back more per unit of cost first, compared as cross products so that a
    /// cost of zero (never opened) is no division by zero.
    @inline(__always)
    static func comparesMisses(
        _ reclaimable: Int64, _ missCost: Double, _ otherReclaimable: Int64, _ otherMissCost: Double
    ) -> Bool? {
        let mine = Double(reclaimable) * otherMissCost
        let theirs = Double(otherReclaimable) * missCost
        return mine == theirs ? nil : mine > theirs
    }

    /// The index of the first victim among `candidates`, in one pass without sorting or
    /// allocating; nil when nobody may be killed. The one place the victim is chosen: `victim`
    /// (for candidate lists) and the killer (over the running apps' records) both call it.
    @inline(__always)
    static func victimIndex<Candidates: Collection>(
        among candidates: Candidates, killForeground: Bool, order: KillOrder = .largest
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
                band: band, reclaimable: candidates[index].reclaimable, missCost: candidates[index].missCost,
                lastUsed: candidates[index].lastUsed, app: candidates[index].app, before: bestBand,
                reclaimable: candidates[current].reclaimable, missCost: candidates[current].missCost,
                lastUsed: candidates[current].lastUsed, app: candidates[current].app, order: order)
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
        band: KillBand, reclaimable: Int64, missCost: @autoclosure () -> Double, lastUsed: Instant,
        app: @autoclosure () -> String, before otherBand: KillBand, reclaimable otherReclaimable: Int64,
        missCost otherMissCost: @autoclosure () -> Double, lastUsed otherLastUsed: Instant,
        app otherApp: @autoclosure () -> String, order: KillOrder
    ) -> Bool {
        if band != otherBand { return band < otherBand }
        if order == .leastMissed, band == .suspended,
            let first = comparesMisses(reclaimable, missCost(), otherReclaimable, otherMissCost())
        {
            return first
        }
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
    /// The weight of the person's recent opens (`KillCandidate.openWeight`).
    var openWeight: Double { get }
    /// The size the next launch is expected to bring back, bytes (`KillCandidate.relaunchSize`).
    var relaunchSize: Int64 { get }
}

extension KillCandidate: KillRankable {}

extension AppRecord: KillRankable {
    var app: String { name }
    var swapped: Int64 { swappedBytes }
}

extension KillRankable {
    /// What losing the app costs under `least_missed` (`KillCandidate.missCost`).
    @inline(__always) var missCost: Double { openWeight * Double(relaunchSize) }
}
