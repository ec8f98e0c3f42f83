/// Reading checkpoints of format 1, written before the core saved its records as they are.
///
/// Format 1 copied each record field by field, some fields as strings, with every instant in
/// milliseconds relative to the checkpoint. It is read so that an upgraded daemon continues
/// from the state the previous version left; it is never written.
extension LifecycleCheckpoint {
    /// A format-1 checkpoint as it was written.
    struct Version1: Decodable, Sendable, Equatable {
        /// One app's record in format 1.
        struct App: Decodable, Sendable, Equatable {
            struct Task: Decodable, Sendable, Equatable {
                var id: Int
                var name: String
            }

            var name: String
            var state: String
            var launch: Int
            var launchTime: Int64
            var launchRestored: Bool
            var launchedPassively: Bool
            var activeSinceLaunch: Bool
            var awaitingReady: Bool
            var pendingStartCold: Bool?
            var pendingStartAfterPassive: Bool?
            var terminating: String?
            var foregroundSince: Int64
            var lastUsed: Int64
            var everInForeground: Bool
            var tasks: [Task]
            var nextTaskID: Int
            var budgetSession: Bool
            var budgetRemainingMillis: Int64
            var budgetMark: Int64?
            var fetchWindowOpen: Bool
            var pushWindowOpen: Bool
            var heldResources: [String]
            var isForceQuit: Bool
            var wakeBlockedBy: String?
            var hasPreservedState: Bool
            var lastTerminationWasSystem: Bool
            var requestedFetchInterval: String
            var deliveredPushIDs: [String]
            var footprint: Int64
            var lastMemoryWarning: Int64?
            var lastBand: Int?
            var lastScore: Int?
            var publishedStatus: Int
            var believedStatus: Int
            var timers: [String: Int64]
        }

        var apps: [App]
        var foreground: [String]
        var isLocked: Bool
        var isOverlaid: Bool
        var pressure: String
        var pushes: PushRouter.State?
        var fetches: FetchScheduler.State?
    }

    /// A checkpoint whose moment is zero, so that format 1's relative times stay relative.
    init(version1 old: Version1) {
        self.init(
            format: 1, moment: .zero, apps: [], foreground: old.foreground, isLocked: old.isLocked,
            isOverlaid: old.isOverlaid, pressure: PressureLevel(rawValue: old.pressure) ?? .normal,
            pushes: old.pushes, fetches: old.fetches, version1Apps: old.apps)
    }
}

extension Lifecycle {
    /// Takes the apps of a format-1 checkpoint, whose moment is `then` on the new clock.
    /// Values that cannot be read fall back to a fresh app's.
    mutating func restore(
        version1 apps: [LifecycleCheckpoint.Version1.App], of checkpoint: LifecycleCheckpoint, at then: Instant
    ) {
        func instant(_ millis: Int64) -> Instant { then + .milliseconds(millis) }
        for app in apps {
            guard let index = indexByName[app.name] else { continue }
            var record = records[index]
            record.state = AppState(rawValue: app.state) ?? .notRunning
            record.launch = app.launch
            record.launchTime = instant(app.launchTime)
            record.launchRestored = app.launchRestored
            record.launchedPassively = app.launchedPassively
            record.activeSinceLaunch = app.activeSinceLaunch
            record.awaitingReady = app.awaitingReady
            if let cold = app.pendingStartCold {
                record.pendingStart = .appStart(cold: cold, afterPassive: app.pendingStartAfterPassive ?? false)
            }
            record.terminating = app.terminating.flatMap(TerminationReason.init(rawValue:))
            record.foregroundSince = instant(app.foregroundSince)
            record.lastUsed = instant(app.lastUsed)
            record.everInForeground = app.everInForeground
            record.tasks = app.tasks.map { AppRecord.OpenTask(id: $0.id, name: $0.name) }
            record.nextTaskID = app.nextTaskID
            record.budgetSession = app.budgetSession
            record.budgetRemaining = .milliseconds(app.budgetRemainingMillis)
            record.budgetMark = app.budgetMark.map(instant)
            record.fetchWindowOpen = app.fetchWindowOpen
            record.pushWindowOpen = app.pushWindowOpen
            record.heldResources = app.heldResources
            if app.isForceQuit {
                record.wakeBlock = .forceQuit
            } else if let reason = app.wakeBlockedBy.flatMap(TerminationReason.init(rawValue:)) {
                record.wakeBlock = .systemTermination(reason)
            }
            record.hasPreservedState = app.hasPreservedState
            record.lastTerminationWasSystem = app.lastTerminationWasSystem
            record.requestedFetchInterval =
                FetchInterval(parsing: app.requestedFetchInterval) ?? record.policyFetchInterval
            record.deliveredPushIDs = Set(app.deliveredPushIDs)
            record.footprint = app.footprint
            record.lastMemoryWarning = app.lastMemoryWarning.map(instant)
            record.lastBand = app.lastBand.flatMap(KillBand.init(rawValue:))
            record.lastScore = app.lastScore
            record.publishedStatus = AppStatus(rawValue: app.publishedStatus) ?? .unknown
            record.believedStatus = AppStatus(rawValue: app.believedStatus) ?? .unknown
            for kind in TimerID.Kind.allCases
            where (kind != .fetchWake || checkpoint.fetches != nil) && (kind != .pushSlot || checkpoint.pushes != nil) {
                record.timers[kind] = app.timers[kind.rawValue].map(instant)
            }
            records[index] = record
        }
    }
}
