import Foundation
import Logging
import WardenCgroup
import WardenCore

extension WardenDaemon {
    /// How often the journal is pruned after the first prune at start.
    static let retentionInterval: Duration = .seconds(3600)

    /// Writes the app's task limit to its group; a host without a pids controller gets one
    /// warning per app, not one per launch.
    func boundTasks(_ app: String, to limit: Int?, of group: AppGroup, with driver: any CgroupDriver) async {
        do {
            try await driver.setTasksMax(limit, of: group)
        } catch {
            warnOnce(app, cause: "tasks_max", "Could not set the task limit of app \"\(app)\": \(error)")
        }
    }

    /// Logs a warning about `app` the first time `cause` brings it, then only a count of the
    /// repeats at most once a minute (`RepeatedWarningLimiter`).
    func warnOnce(_ app: String, cause: String, _ message: String) {
        switch warningLimiter.admit(subject: app, cause: cause, at: clock.elapsed()) {
        case .first: logger.warning("\(message)")
        case .repeated(let times): logger.warning("\(message) (repeated \(times) times)")
        case .suppressed: break
        }
    }

    /// Prunes the journal at start and then every hour, off the actor, in batches of 1,000 rows
    /// with a yield between batches, so appends and calls go on while old entries go.
    func startRetention() {
        guard let store = journalStore as? JournalStore else { return }
        let clock = clock
        let logger = logger
        loops.append(
            Task.detached { [weak self] in
                var next = clock.elapsed()
                while !Task.isCancelled {
                    try? await clock.sleep(untilElapsed: next)
                    guard !Task.isCancelled, let retention = await self?.policy.journal else { return }
                    do {
                        let deleted = try await store.prune(
                            retention, nowMillis: WardenClock.wallMillisNow(), between: { await Task.yield() })
                        if deleted > 0 { logger.info("Pruned \(deleted) old journal entries.") }
                    } catch {
                        logger.warning("Could not prune the journal: \(error)")
                    }
                    next = max(next + Self.retentionInterval, clock.elapsed())
                }
            })
    }
}
