/// Finds the known name closest to a misspelt one, for "did you mean" hints in policy and
/// scenario files.
public enum KeySuggestion {
    /// The candidate closest to `name` when it is close enough to be a likely typo
    /// (case and `-`/`_` differences count as nothing; otherwise at most 1 edit for short
    /// names and 2 for longer ones).
    public static func closest(to name: String, among candidates: [String]) -> String? {
        let normalized = normalize(name)
        let limit = normalized.count <= 4 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(normalized, normalize(candidate))
            if distance <= limit, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    private static func normalize(_ name: String) -> [Character] {
        Array(name.lowercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The optimal string alignment distance between two character arrays: insertions,
    /// deletions, substitutions and swaps of neighbouring characters each count one.
    static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        if lhs.isEmpty { return rhs.count }
        if rhs.isEmpty { return lhs.count }
        var beforePrevious = [Int](repeating: 0, count: rhs.count + 1)
        var previous = Array(0...rhs.count)
        var current = [Int](repeating: 0, count: rhs.count + 1)
        for i in 1...lhs.count {
            current[0] = i
            for j in 1...rhs.count {
                let cost = lhs[i - 1] == rhs[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, lhs[i - 1] == rhs[j - 2], lhs[i - 2] == rhs[j - 1] {
                    best = min(best, beforePrevious[j - 2] + 1)
                }
                current[j] = best
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[rhs.count]
    }

    /// Joins names for a sentence: `a`, `a and b`, `a, b and c` (or another conjunction).
    static func list(_ names: [String], quoted: Bool = false, conjunction: String = "and") -> String {
        let items = quoted ? names.map { "\"\($0)\"" } : names
        guard let last = items.last, items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
