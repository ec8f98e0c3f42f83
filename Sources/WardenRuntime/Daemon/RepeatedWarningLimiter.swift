/// Lets a warning that keeps coming back through once per subject and cause, then counts it.
///
/// The first warning for a (subject, cause) pair is logged whole. Repeats are counted and
/// reported as one "(repeated N times)" line at most once per `interval`. Once the cause goes
/// away (`clear`), its next appearance is logged whole again; a different cause for the same
/// subject is a pair of its own and is logged at once.
public struct RepeatedWarningLimiter: Sendable {
    /// What to do with one warning.
    public enum Admission: Sendable, Equatable {
        /// Log the warning: the first of its kind.
        case first
        /// Log the warning with the number of times it came since the last line about it
        /// (this one included).
        case repeated(times: Int)
        /// Count it and log nothing.
        case suppressed
    }

    private struct Key: Hashable {
        var subject: String
        var cause: String
    }

    private struct Tally {
        var lastLogged: Duration
        var unlogged: Int
    }

    /// The shortest time between two lines about the same subject and cause.
    public let interval: Duration
    private var tallies: [Key: Tally] = [:]

    /// Makes a limiter that reports repeats at most once per `interval` (one minute by default).
    public init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// Decides whether the warning about `subject` for `cause`, at `now` (any monotonic time),
    /// is logged.
    public mutating func admit(subject: String, cause: String, at now: Duration) -> Admission {
        let key = Key(subject: subject, cause: cause)
        guard var tally = tallies[key] else {
            tallies[key] = Tally(lastLogged: now, unlogged: 0)
            return .first
        }
        tally.unlogged += 1
        if now - tally.lastLogged >= interval {
            let times = tally.unlogged
            tallies[key] = Tally(lastLogged: now, unlogged: 0)
            return .repeated(times: times)
        }
        tallies[key] = tally
        return .suppressed
    }

    /// Forgets `subject`'s warnings (the cause went away or the subject ended), returning how
    /// many repeats were never reported.
    @discardableResult
    public mutating func clear(subject: String) -> Int {
        var unlogged = 0
        for key in tallies.keys where key.subject == subject {
            unlogged += tallies.removeValue(forKey: key)?.unlogged ?? 0
        }
        return unlogged
    }
}
