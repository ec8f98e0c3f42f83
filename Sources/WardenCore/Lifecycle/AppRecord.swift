/// The core's model of one app: its state, its launch, its background session and everything
/// that keeps it awake or decides what happens to it next.
///
/// `Lifecycle` keeps one record per app it has ever known, in an array indexed through a
/// dictionary of names, so that every event finds its app in constant time.
///
/// The record is the core's checkpoint of the app (`LifecycleCheckpoint`): it encodes
/// everything but what the app's policy entry says, which a restore takes from the policy in
/// force (`apply(_:)`). Its instants are on the clock of the core that wrote it; a restore
/// moves them onto its own clock (`shift(by:)`).
///
/// Outside the core a record is opaque: a checkpoint's writer compares, names and encodes it.
public struct AppRecord: Sendable, Equatable, Codable {
    /// A background task the app has begun and not ended.
    struct OpenTask: Sendable, Equatable, Codable {
        var id: Int
        var name: String
    }

    /// The device event an open accessory window is for (rule 14): the last one delivered in it.
    struct AccessoryEvent: Sendable, Equatable, Codable {
        /// `add`, `remove`, `change`, … as udev or the kernel named it.
        var action: String
        /// The device in a few words (`Lifecycle.deviceDescription`); nil when the event had none.
        var device: String?
    }

    /// A continuous activity the app has begun and not ended (rule 14).
    struct OpenActivity: Sendable, Equatable, Codable {
        var id: Int
        var mode: BackgroundMode
    }

    public internal(set) var name: String
    /// The app's resolved timing settings (its `AppPolicy.settings`).
    var settings = TimingSettings()
    var isProtected = false
    var readiness: Readiness = .immediate
    /// Whether appwarden drives the app's lifecycle (`status_source = "managed"`).
    var isManaged = true
    var hasFetchMode = false
    /// Whether silent pushes may wake or launch the app (`remote-notification`).
    var hasRemoteNotificationMode = false
    /// The continuous modes the policy declares (`audio`, `location`, `long-work`): the
    /// activities the app may hold.
    var continuousModes: Set<BackgroundMode> = []
    /// The accessories whose events wake the app (rule 14).
    var accessories: [AccessoryMatch] = []
    var backgroundRefresh = true
    /// The policy's `fetch_interval`, which `reset` restores.
    var policyFetchInterval: FetchInterval
    /// Whether the current policy declares the app; a removed app still receives runtime facts.
    var inPolicy = true

    // MARK: State and launch

    var state: AppState = .notRunning
    /// The current launch number: 1, 2, 3… per app; 0 before the first launch.
    var launch = 0
    var launchTime: Instant = .zero
    /// Whether the current launch was asked to restore its preserved state.
    var launchRestored = false
    /// Whether the current launch was passive (a fetch or push launched it into background).
    var launchedPassively = false
    /// Whether the app has been active since its current launch.
    var activeSinceLaunch = false
    /// Whether the current launch has not yet reported `ready`.
    var awaitingReady = false
    /// The `$AppStart` to journal when the app next becomes active (set on entering the foreground).
    var pendingStart: AnalyticsEvent?
    /// Set while a graceful termination waits for the process to exit.
    var terminating: TerminationReason?
    /// Whether the app is opened again once its termination completes (a foreground app
    /// restarted by a policy reload).
    var reopenAfterExit = false
    /// The launch settings the current launch was started with; nil before a launch (and for
    /// a launch restored from a checkpoint written before they were kept).
    var launchedWith: ProcessLaunchSettings?

    // MARK: Foreground and use

    var foregroundSince: Instant = .zero
    /// The last time the app was in the foreground, or its launch time if it never was.
    var lastUsed: Instant = .zero
    var everInForeground = false
    /// When the person last opened the app (the `open` verb bringing it to the foreground), oldest
    /// first, at most `KillOrder.keptOpens`; nil before any, so that an old checkpoint decodes.
    /// `kill_order = "least_missed"` weighs them.
    var userOpens: [Instant]?

    // MARK: Background tasks and their budget

    var tasks: [OpenTask] = []
    var nextTaskID = 1
    /// Whether a background session (and so a task budget) is running.
    var budgetSession = false
    /// The budget left at `budgetMark`.
    var budgetRemaining: Duration = .zero
    /// Since when the budget has been running down; nil while the clock is paused (locked screen).
    var budgetMark: Instant?

    // MARK: Continuous activities (rule 14)

    /// The activities held, in the order begun; nil when none (so that a checkpoint written
    /// before activities existed reads as holding none).
    var heldActivities: [OpenActivity]?
    /// The id of the next activity; nil for 1.
    var nextActivityNumber: Int?

    // MARK: Windows, resources, marks

    var fetchWindowOpen = false
    var pushWindowOpen = false
    /// Whether an accessory window is open (rule 14); nil when closed, so that a checkpoint
    /// written before accessory wakes reads as closed.
    var accessoryWindow: Bool?
    /// The stall counted in the open fetch window; nil where it cannot be measured.
    var fetchStall: WindowStall?
    /// The stall counted in the open push window; nil where it cannot be measured.
    var pushStall: WindowStall?
    /// The stall counted in the open accessory window; nil where it cannot be measured.
    var accessoryStall: WindowStall?
    /// The event the open accessory window is for; nil when none is open.
    var accessoryWindowEvent: AccessoryEvent?
    /// The memory the last fetch or push wake had to bring back into RAM (a compressed app's
    /// swapped part, a launched app's last footprint), in bytes: counted against later fetch
    /// wakes while a window is open. Not saved.
    var wakeCharge: Int64 = 0
    /// Shared resources acquired through the API and not released, in acquisition order.
    var heldResources: [String] = []
    /// Why fetch and push wakes may not launch or wake the app until the user opens it; nil
    /// when they may.
    var wakeBlock: WakeBlock?
    /// Whether the app has been asked to save its state and that state has not been deleted.
    var hasPreservedState = false
    /// Whether the app's last termination was a system one (its next launch restores).
    var lastTerminationWasSystem = false
    /// The reason of the app's last termination when the system ended it (the device killed
    /// it); nil after any other. An open that launches it again is a cold launch after a kill.
    var lastSystemTermination: TerminationReason?
    /// How many times the user opened the app after the device had killed it (cold launches,
    /// counted as each becomes active); nil for none, so that the checkpoint of an app without
    /// any is what it was before they were counted.
    var coldLaunches: Int?
    var requestedFetchInterval: FetchInterval
    /// Ids of the pushes handed to the app, never delivered twice (kept across reinstalls).
    var deliveredPushIDs: Set<String> = []

    // MARK: Memory

    var footprint: Int64 = 0
    /// The peaks of the app's last launches and its expected size (rule 9's room before a
    /// launch); nil until a footprint was measured, so that an old checkpoint decodes.
    var memoryHistory: LaunchMemoryHistory?
    var lastMemoryWarning: Instant?
    var lastBand: KillBand?
    var lastScore: Int?
    /// The app's memory bounds on the device as last measured; not saved: the policy and the
    /// device's memory give them (`Lifecycle.resolveMemoryBounds`).
    var bounds = MemoryBounds()
    /// The limits last handed to the runtime for the app's current group; nil since the launch
    /// until some are.
    var groupLimits: GroupMemoryLimits?
    /// Whether the footprint was above `memory_high` when last measured: crossing it warns the app.
    var isAboveHigh = false
    /// How much of the footprint is in swap: what the last compression left there, or the last
    /// measurement with a swapped part found; at most the footprint; reset by each launch.
    var swappedBytes: Int64 = 0
    /// How much RAM the swapped part takes: its compressed size in a zram, 0 on a drive; the
    /// whole swapped part where the measurement did not say. At most `swappedBytes`.
    var swappedInRAM: Int64 = 0
    /// Whether room before a launch asked for the app's compression and its result has not come
    /// back (`Lifecycle.compressed`): a second launch before it does not count the app again.
    /// Not saved; reset by each launch.
    var compressionAskedForRoom = false
    /// The weight of the person's recent opens (`KillOrder.openWeight`) and the size the app's
    /// next launch is expected to bring back, bytes, as the killer last weighed them under
    /// `kill_order = "least_missed"` (`Lifecycle.weighMisses(at:)`); 0 otherwise. Not saved.
    var openWeight: Double = 0
    var relaunchSize: Int64 = 0

    /// What a kill gives back at once (rule 9): the footprint's part in RAM and what its swapped
    /// part takes of RAM, not the swapped part counted whole.
    var reclaimable: Int64 { Self.reclaimable(footprint: footprint, swapped: swappedBytes, inRAM: swappedInRAM) }

    /// What a kill of an app with this footprint, `swapped` of it in swap taking `inRAM` of RAM,
    /// gives back at once: the rule 9 measure in one place.
    @inline(__always)
    static func reclaimable(footprint: Int64, swapped: Int64, inRAM: Int64) -> Int64 {
        footprint - swapped + inRAM
    }

    // MARK: CPU

    /// The start of the background CPU budget's current window; nil until it is measured.
    /// Not saved: a restored core starts a new window.
    var cpuBaseline: CPUSample?
    /// Windows in a row above the budget (a warning after the first).
    var cpuStrikes = 0
    /// The app's CPU use over its last measured window in background, in percent of one CPU;
    /// nil until one was measured in the current launch.
    var cpuPercent: Int?

    // MARK: Status

    /// The last status published for the app.
    var publishedStatus: AppStatus = .unknown
    /// For `status_source = "reported"` apps: what the app last said, or what the watchdog found.
    var believedStatus: AppStatus = .unknown

    // MARK: Timers

    /// The deadline of every armed timer; nil when not armed.
    var timers = TimerDeadlines()

    /// What the checkpoint saves: every field but those `apply(_:)` takes from the policy.
    /// `policyFetchInterval` is saved so that a restore under a changed `fetch_interval`
    /// follows the new one, as a reload does.
    enum CodingKeys: String, CodingKey {
        case name, policyFetchInterval
        case state, launch, launchTime, launchRestored, launchedPassively, activeSinceLaunch, awaitingReady
        case pendingStart, terminating, launchedWith
        case foregroundSince, lastUsed, everInForeground, userOpens
        case tasks, nextTaskID, budgetSession, budgetRemaining, budgetMark
        case heldActivities, nextActivityNumber
        case fetchWindowOpen, pushWindowOpen, accessoryWindow, fetchStall, pushStall, accessoryStall,
            accessoryWindowEvent, heldResources, wakeBlock, hasPreservedState,
            lastTerminationWasSystem, lastSystemTermination, coldLaunches
        case requestedFetchInterval, deliveredPushIDs
        case footprint, memoryHistory, lastMemoryWarning, lastBand, lastScore
        case publishedStatus, believedStatus
        case timers
    }

    init(policy: AppPolicy) {
        self.name = policy.name
        self.settings = policy.settings
        self.isProtected = policy.isProtected
        self.readiness = policy.readiness
        self.isManaged = policy.statusSource == .managed
        self.hasFetchMode = policy.backgroundModes.contains(.fetch)
        self.hasRemoteNotificationMode = policy.backgroundModes.contains(.remoteNotification)
        self.continuousModes = policy.backgroundModes.filter(\.isContinuous)
        self.accessories = policy.accessories
        self.backgroundRefresh = policy.backgroundRefresh
        self.policyFetchInterval = policy.fetchInterval
        self.requestedFetchInterval = policy.fetchInterval
    }

    /// Takes the settings of a reloaded policy entry; the requested fetch interval follows the
    /// policy's only when the policy's changed.
    mutating func apply(_ policy: AppPolicy) {
        if policy.fetchInterval != policyFetchInterval || !inPolicy {
            requestedFetchInterval = policy.fetchInterval
        }
        settings = policy.settings
        isProtected = policy.isProtected
        readiness = policy.readiness
        isManaged = policy.statusSource == .managed
        hasFetchMode = policy.backgroundModes.contains(.fetch)
        hasRemoteNotificationMode = policy.backgroundModes.contains(.remoteNotification)
        continuousModes = policy.backgroundModes.filter(\.isContinuous)
        accessories = policy.accessories
        backgroundRefresh = policy.backgroundRefresh
        policyFetchInterval = policy.fetchInterval
        inPolicy = true
    }

    /// Moves every instant of the record by `offset`: from the clock of the core that wrote a
    /// checkpoint onto the clock of the core that restores it.
    mutating func shift(by offset: Duration) {
        launchTime = launchTime + offset
        foregroundSince = foregroundSince + offset
        lastUsed = lastUsed + offset
        userOpens = userOpens?.map { $0 + offset }
        budgetMark = budgetMark.map { $0 + offset }
        lastMemoryWarning = lastMemoryWarning.map { $0 + offset }
        timers.shift(by: offset)
    }

    /// The person opened the app at `now`: remembered among its last `KillOrder.keptOpens` opens.
    mutating func rememberOpen(at now: Instant) {
        var opens = userOpens ?? []
        opens.append(now)
        if opens.count > KillOrder.keptOpens { opens.removeFirst(opens.count - KillOrder.keptOpens) }
        userOpens = opens
    }

    /// Whether the user force-quit the app and has not opened it since.
    var isForceQuit: Bool { wakeBlock == .forceQuit }

    /// Whether a process of the app is running (or frozen).
    @inline(__always) var isRunning: Bool { state != .notRunning }

    /// Whether the app is in the foreground (inactive or active).
    @inline(__always) var isInForeground: Bool { state == .inactive || state == .active }

    /// Whether the app holds an activity (rule 14).
    @inline(__always) var holdsActivity: Bool { heldActivities != nil }

    /// The activities held, in the order begun.
    var activities: [OpenActivity] {
        get { heldActivities ?? [] }
        set { heldActivities = newValue.isEmpty ? nil : newValue }
    }

    /// Whether an accessory window is open (rule 14). Closing it forgets the event it was for.
    var accessoryWindowOpen: Bool {
        get { accessoryWindow ?? false }
        set {
            accessoryWindow = newValue ? true : nil
            if !newValue { accessoryWindowEvent = nil }
        }
    }

    /// Whether a fetch, push or accessory window is open.
    @inline(__always) var hasOpenWindow: Bool { fetchWindowOpen || pushWindowOpen || accessoryWindow != nil }

    /// Whether the app may be woken for background fetches now.
    @inline(__always) var wantsFetch: Bool {
        inPolicy && hasFetchMode && backgroundRefresh && wakeBlock == nil && requestedFetchInterval != .never
    }

    /// The kill band of a running app (rule 9). The killer reads the same fields in place
    /// (`KillableRecords.Record.band`); `LifecycleMemoryTests` keeps the two in step.
    @inline(__always) var band: KillBand {
        KillBand(
            state: state, hasTasks: !tasks.isEmpty, hasOpenWindow: hasOpenWindow, overFairShare: isOverFairShare,
            holdsActivity: holdsActivity)
    }

    /// Whether the app's footprint is above its fair share of the device's memory.
    @inline(__always) var isOverFairShare: Bool {
        guard let share = bounds.fairShare else { return false }
        return footprint > share
    }

    /// What is left of the task budget at `now`; nil when no background session is running.
    func budgetLeft(at now: Instant) -> Duration? {
        Self.budgetLeft(session: budgetSession, remaining: budgetRemaining, mark: budgetMark, at: now)
    }

    /// What is left at `now` of a budget that had `remaining` left at `mark` (nil: paused).
    static func budgetLeft(session: Bool, remaining: Duration, mark: Instant?, at now: Instant) -> Duration? {
        guard session else { return nil }
        guard let mark else { return remaining }
        let left = remaining - (now - mark)
        return left > .zero ? left : .zero
    }

    /// Starts the next launch: a new launch number and a clean slate for what belongs to a
    /// launch. Returns whether the launch restores the preserved state (§1.4).
    mutating func startLaunch(reason: LaunchReason, at now: Instant) -> Bool {
        launch += 1
        let restore = hasPreservedState && lastTerminationWasSystem
        launchTime = now
        launchRestored = restore
        launchedPassively = reason != .user
        activeSinceLaunch = false
        awaitingReady = true
        pendingStart = nil
        if !tasks.isEmpty { tasks.removeAll() }
        nextTaskID = 1
        heldActivities = nil
        nextActivityNumber = nil
        if !heldResources.isEmpty { heldResources.removeAll() }
        fetchWindowOpen = false
        pushWindowOpen = false
        accessoryWindowOpen = false
        budgetSession = false
        believedStatus = .unknown
        groupLimits = nil
        isAboveHigh = false
        swappedBytes = 0
        swappedInRAM = 0
        compressionAskedForRoom = false
        memoryHistory?.startLaunch()
        cpuBaseline = nil
        cpuStrikes = 0
        cpuPercent = nil
        if !everInForeground {
            lastUsed = now
        }
        return restore
    }
}

/// Why fetch, push and accessory wakes leave an app alone until the user opens it (rules 4, 5 and 14).
enum WakeBlock: Sendable, Equatable, Codable {
    /// The user force-quit the app.
    case forceQuit
    /// The system terminated it for this reason (unless `wake_after_system_termination`).
    case systemTermination(TerminationReason)

    /// The end of a sentence saying why a push waits for the next launch.
    var pushSentence: String {
        switch self {
        case .forceQuit: "the app was force-quit"
        case .systemTermination(let reason): "the system terminated the app (\(reason.rawValue))"
        }
    }
}
