import WardenAPI

/// What the daemon remembers for operators beyond the journal: the last kills (for
/// `GET /v1/device` and `top`) and the warnings it already logged.
struct DaemonHistory {
    /// The last kills, oldest first (at most `recentKillLimit`).
    var recentKills: [KillInfo] = []
    static let recentKillLimit = 10
    /// Warnings that repeat (per app and cause) are logged once, then counted.
    var warnings = RepeatedWarningLimiter()

    /// Keeps `kill`, dropping the oldest beyond the limit.
    mutating func remember(_ kill: KillInfo) {
        recentKills.append(kill)
        if recentKills.count > Self.recentKillLimit {
            recentKills.removeFirst(recentKills.count - Self.recentKillLimit)
        }
    }
}
