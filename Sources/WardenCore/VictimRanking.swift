/// Rule 9: bands first-killed-first (suspended, idleBackground, backgroundWindow, backgroundTask,
/// foreground); inside a band the largest footprint first; ties: least recently used (older lastUsed)
/// first, then app name ascending. Protected apps never; foreground apps only if killForeground.
///
/// The order is total: two different candidates never tie, so the result does not depend on the
/// order in which the candidates are given.
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
        // Fields are read in place through the buffer: no copies, so no reference counting of
        // names in the loop; a name is only compared when everything else ties.
        let best = candidates.withUnsafeBufferPointer { buffer -> Int? in
            var best = -1
            for index in buffer.indices {
                let band = buffer[index].band
                guard !buffer[index].isProtected, band != .foreground || killForeground else { continue }
                if best < 0 {
                    best = index
                    continue
                }
                let bestBand = buffer[best].band
                if band != bestBand {
                    if band < bestBand { best = index }
                    continue
                }
                let footprint = buffer[index].footprint
                let bestFootprint = buffer[best].footprint
                if footprint != bestFootprint {
                    if footprint > bestFootprint { best = index }
                    continue
                }
                if precedes(buffer[index], buffer[best]) { best = index }
            }
            return best < 0 ? nil : best
        }
        return best.map { candidates[$0] }
    }

    /// Whether the killer may choose `candidate` at all.
    public static func isEligible(_ candidate: KillCandidate, killForeground: Bool) -> Bool {
        !candidate.isProtected && (candidate.band != .foreground || killForeground)
    }

    /// Whether `first` is killed before `second`: lower band, then larger footprint, then
    /// less recently used, then app name ascending.
    public static func precedes(_ first: KillCandidate, _ second: KillCandidate) -> Bool {
        precedes(
            band: first.band, footprint: first.footprint, lastUsed: first.lastUsed, app: first.app,
            bandOf: second.band, footprint: second.footprint, lastUsed: second.lastUsed, app: second.app)
    }

    /// `precedes` on the candidates' fields, for callers that keep them elsewhere.
    @inline(__always)
    static func precedes(
        band: KillBand, footprint: Int64, lastUsed: Instant, app: String,
        bandOf otherBand: KillBand, footprint otherFootprint: Int64, lastUsed otherLastUsed: Instant,
        app otherApp: String
    ) -> Bool {
        if band != otherBand { return band < otherBand }
        if footprint != otherFootprint { return footprint > otherFootprint }
        if lastUsed != otherLastUsed { return lastUsed < otherLastUsed }
        return app < otherApp
    }
}
