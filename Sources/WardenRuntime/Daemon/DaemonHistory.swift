import WardenAPI

/// What the daemon remembers for operators beyond the journal: the last kills (for
/// `GET /v1/device` and `top`).
struct DaemonHistory {
    /// The last kills, oldest first (at most `recentKillLimit`).
    var recentKills: [KillInfo] = []
    static let recentKillLimit = 10

    /// Keeps `kill`, dropping the oldest beyond the limit.
    mutating func remember(_ kill: KillInfo) {
        recentKills.append(kill)
        if recentKills.count > Self.recentKillLimit {
            recentKills.removeFirst(recentKills.count - Self.recentKillLimit)
        }
    }
}
