/// Every effect the core decides on. The runtime carries them out in order; the simulator
/// records them. The core never performs an effect itself.
public enum LifecycleAction: Sendable, Equatable {
    /// Start the app's process (launch number `launch`) in its own group.
    /// `restore` asks it to restore from its preserved state (`APPWARDEN_RESTORE=1`).
    case spawn(app: String, launch: Int, reason: LaunchReason, restore: Bool)
    /// Freeze the app's group. `guardPaths` are paths of shared resources the app must not
    /// hold: if one of its processes has one open or locked, the runtime does not freeze and
    /// reports `LifecycleEvent.heldAtSuspension`.
    case freeze(app: String, guardPaths: [ResourcePath])
    /// Thaw the app's group.
    case thaw(app: String)
    /// Send SIGTERM to the app's processes; the core arms the termination grace and kills after it.
    case terminate(app: String, reason: TerminationReason)
    /// SIGKILL the whole group at once (thawing it afterwards on cgroup v1).
    case kill(app: String, reason: TerminationReason)
    /// Set `oom_score_adj` of every process of the app (rule 10).
    case setOOMScore(app: String, band: KillBand, score: Int)
    /// Deliver a message on the app's own event stream.
    case deliver(app: String, message: AppMessage)
    /// Arm (or re-arm) a timer; the runtime sends `timerFired` at or after `deadline`.
    case armTimer(TimerID, deadline: Instant)
    /// Cancel a timer. A cancelled timer that still fires is ignored by the core.
    case cancelTimer(TimerID)
    /// Publish a status change to the status notifier's observers (§1.5).
    case publishStatus(app: String, status: AppStatus)
    /// Ask the runtime to scan the app's processes; it answers with `scanResult`.
    case scan(app: String)
    /// Append a record to the app's durable journal.
    case journal(JournalRecord)
    /// Delete the app's preserved state (its restoration directory).
    case deleteRestorationState(app: String)
    /// Answer the call that produced this batch of actions.
    case reply(Reply)
    /// Run an operator hook (`[hooks]`) in the background; it never delays the actions after it.
    case runHook(HookInvocation)
}

/// A resource path guarded at suspension.
public struct ResourcePath: Sendable, Hashable {
    public var resource: String
    public var path: String

    public init(resource: String, path: String) {
        self.resource = resource
        self.path = path
    }
}

/// A message to one app, on its own event stream (§1.2).
public enum AppMessage: Sendable, Equatable {
    /// The app's lifecycle state changed.
    case stateChanged(AppState)
    /// The background-task budget ends soon: end these tasks.
    case expirationWarning(taskIDs: [Int], remaining: Duration)
    /// A fetch window opened.
    case fetchStart(window: Duration)
    /// A silent push arrived; the window to `complete-push` opened.
    case pushPayload(payload: String, id: String?, window: Duration)
    /// Memory is short: free what can be rebuilt.
    case memoryWarning
    /// Save state to the restoration directory now.
    case saveState
}

/// The answer to the call that produced a batch of actions.
public enum Reply: Sendable, Equatable {
    /// `begin-task`: the new task's id and the time remaining (nil: unlimited while in the foreground).
    case taskBegun(id: Int, remaining: Duration?)
    /// `time-remaining`: nil while in the foreground (no budget is running).
    case timeRemaining(Duration?)
    /// `register-push`: the app's current device token.
    case deviceToken(String)
    /// `push`: what became of it.
    case push(PushDisposition)
    /// `policy reload`: the apps added, removed and changed, and what became of them.
    case policyChanged(PolicyDiff)
}

/// What became of an accepted push.
public enum PushDisposition: String, Sendable, Equatable, CaseIterable {
    /// Delivered now (the app was woken, launched or was already running).
    case delivered
    /// Held until the app's next push slot (newest kept).
    case coalesced
    /// Kept for the app's next launch (it was force-quit).
    case pendingLaunch
    /// Accepted but wakes nothing (no `content-available`).
    case notWoken
    /// Dropped: this notification id was delivered before.
    case duplicate
}

/// One durable journal record (§1.6).
public struct JournalRecord: Sendable, Equatable {
    public var app: String
    public var time: Instant
    public var kind: Kind

    public init(app: String, time: Instant, kind: Kind) {
        self.app = app
        self.time = time
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        /// An analytics event: `$AppStart`, `$AppEnd`, `$AppStartPassively`, `$AppTerminated`.
        case analytics(AnalyticsEvent)
        /// A lifecycle state change, with the reason in words (for `explain`).
        case stateChange(from: AppState, to: AppState, because: String)
        /// A decision not to do something, with the reason in words (for `explain`):
        /// a fetch skipped, a push coalesced, a victim passed over.
        case decision(String)
        /// The memory killer's choice of this app, with the figures and the candidates passed over.
        case memoryKill(MemoryKillReport)
        /// Something about the device or the daemon (pressure, screen, policy, start and stop).
        case system(SystemEvent)
    }
}

/// The analytics events of §1.6.
public enum AnalyticsEvent: Sendable, Equatable, Codable {
    /// The app became active. `cold`: this open launched the process; `afterPassive`: it
    /// had been launched passively.
    case appStart(cold: Bool, afterPassive: Bool)
    /// The app entered background after `foregroundDuration` in the foreground.
    case appEnd(foregroundDuration: Duration)
    /// The app was launched straight into background.
    case appStartPassively(reason: LaunchReason)
    /// The app stopped running.
    case appTerminated(reason: TerminationReason)

    /// The event's name as it appears in the journal and in scenarios.
    public var name: String {
        switch self {
        case .appStart: "$AppStart"
        case .appEnd: "$AppEnd"
        case .appStartPassively: "$AppStartPassively"
        case .appTerminated: "$AppTerminated"
        }
    }
}

/// Why the core refused an event. A refused event changes nothing.
public struct LifecycleError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    /// A full sentence naming what was wrong.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// No such app, task or resource (HTTP 404).
        case notFound
        /// The app's state does not allow this call (HTTP 409).
        case conflict
        /// The device token is stale (HTTP 410).
        case unregistered
        /// The push payload is larger than allowed (HTTP 413).
        case payloadTooLarge
        /// The input is malformed (HTTP 400).
        case invalid
        /// The daemon is stopping and took no part of the call; asking again later, of the
        /// daemon that starts next, may succeed (HTTP 503 with Retry-After).
        case unavailable
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The refusal of anything naming an app the policy does not declare: one sentence for
    /// every verb, call and read.
    public static func unknownApp(_ app: String) -> LifecycleError {
        LifecycleError(.notFound, "No app named \"\(app)\" is declared in the policy.")
    }
}
