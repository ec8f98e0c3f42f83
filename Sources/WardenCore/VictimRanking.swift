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
        var best: KillCandidate?
        for candidate in candidates where isEligible(candidate, killForeground: killForeground) {
            if let current = best {
                if precedes(candidate, current) { best = candidate }
            } else {
                best = candidate
            }
        }
        return best
    }

    /// Whether the killer may choose `candidate` at all.
    public static func isEligible(_ candidate: KillCandidate, killForeground: Bool) -> Bool {
        !candidate.isProtected && (candidate.band != .foreground || killForeground)
    }

    /// Whether `first` is killed before `second`: lower band, then larger footprint, then
    /// less recently used, then app name ascending.
    public static func precedes(_ first: KillCandidate, _ second: KillCandidate) -> Bool {
        if first.band != second.band { return first.band < second.band }
        if first.footprint != second.footprint { return first.footprint > second.footprint }
        if first.lastUsed != second.lastUsed { return first.lastUsed < second.lastUsed }
        return first.app < second.app
    }
}
