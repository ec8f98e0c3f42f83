public import WardenCore
public import WardenScenario

/// Replays a scenario in virtual time: owns a `Lifecycle`, feeds it the steps and the events
/// the simulated runtime produces, and carries out its actions in simulation.
///
/// Processes "run" from `spawn` until they exit; SIGTERM and SIGKILL end them at once. Apps
/// answer fetch and push windows and expiration calls as their `SimulatedApp` models say,
/// counting from when their process runs (`launch_time` after the spawn): a process that never
/// runs answers nothing. Timers live in
/// a `DeadlineQueue`: those due at or before a step's time fire before it, in (deadline,
/// insertion) order. With `Scenario.memory` set, every change of what is in memory sends a
/// memory sample to the core, and each kill frees the victim's footprint and sends another,
/// until the core stops killing.
///
/// ```swift
/// var simulator = Simulator(scenario: scenario)
/// let result = simulator.run()
/// #expect(result.record.killOrder == ["maps", "mail"])
/// ```
public struct Simulator {
    /// The scenario being replayed.
    public let scenario: Scenario
    /// The core under simulation.
    public internal(set) var lifecycle: Lifecycle
    /// The current virtual time.
    public internal(set) var now: Instant = .zero
    /// Terminations, analytics, publications, refusals and checks so far.
    public internal(set) var record = SimulationRecord()
    /// Every step, input, effect and refusal so far (empty when tracing is off).
    public internal(set) var trace: [TraceEntry] = []
    /// How many events have been handed to the core so far (steps, timers, runtime facts), refused ones included.
    public internal(set) var eventCount = 0
    /// Whether `trace` is kept. Off, a run does no per-event formatting or recording beyond `record`.
    public let isTracing: Bool

    var queue = DeadlineQueue<Occurrence>()
    /// The sequence number of the live arming of each core timer of a simulated app, at
    /// `timerSlot(app, kind)`; older queue entries are stale. `UInt64.max`: not armed.
    var armedSequences: [UInt64] = []
    /// The same for timers of apps the simulator does not know.
    var armed: [TimerID: UInt64] = [:]
    var apps: [SimulatedGroup] = []
    var appIndex: [String: Int] = [:]
    /// The last name looked up in `appIndex` and its index: the actions of one event mostly
    /// concern one app, so most lookups hash nothing.
    var lastLookup: (app: String, index: Int)?
    var pending: [LifecycleEvent] = []
    var memoryChanged = false
    /// Σ footprints of the apps whose process runs.
    var bytesInMemory: Int64 = 0
    /// Σ of what compression moved to swap of those footprints.
    var bytesSwapped: Int64 = 0
    /// Σ of the RAM those swapped parts take (their compressed copies).
    var bytesSwappedInRAM: Int64 = 0
    /// The device's memory stall that samples report (`stall` steps).
    var stallPercent: Double?
    var started = false
    /// The status notifier the core's `publishStatus` actions feed: read statuses from it, or
    /// add observers, which are called in registration order on every publication.
    public var notifier = StatusNotifier()

    /// Prepares a run of `scenario`. With `tracing` off only `record` is kept (for benchmarks).
    public init(scenario: Scenario, tracing: Bool = true) {
        self.scenario = scenario
        self.lifecycle = Lifecycle(policy: scenario.policy)
        self.isTracing = tracing
        for app in scenario.policy.apps {
            appIndex[app.name] = apps.count
            apps.append(SimulatedGroup(name: app.name, facts: scenario.facts(of: app.name)))
        }
        armedSequences = Array(repeating: .max, count: apps.count * TimerID.Kind.allCases.count)
    }

    /// Memory available to apps under the memory model: memory − reserved − Σ footprints in
    /// memory, of which what is in swap is left out, but for the RAM a compressed copy takes
    /// (`zram_ratio`, or a footprint step's own `ratio` or `in-ram`).
    public var availableMemory: Int64? {
        scenario.memory.map { $0 - scenario.reserved - (bytesInMemory - bytesSwapped) - bytesSwappedInRAM }
    }

    /// What `swapped` bytes in the scenario's swap take of RAM: 1/`zram_ratio` of them, nothing
    /// for swap on a disk (or no swap declared).
    func swappedInRAM(_ swapped: Int64) -> Int64 {
        scenario.swappedInRAM(swapped)
    }

    /// Sets what of app `index`'s footprint is in swap and the RAM that takes, keeping the sums.
    mutating func setSwapped(_ index: Int, _ swapped: Int64, inRAM: Int64) {
        bytesSwapped += swapped - apps[index].swapped
        bytesSwappedInRAM += inRAM - apps[index].swappedInRAM
        apps[index].swapped = swapped
        apps[index].swappedInRAM = inRAM
    }

    /// What swap can still take, under the memory model with swap.
    public var swapFigures: SwapFigures? {
        guard let swap = scenario.swap else { return nil }
        return SwapFigures(
            free: max(0, swap - bytesSwapped), total: swap, swappable: bytesInMemory - bytesSwapped,
            compressionRatio: scenario.zramRatio, stallPercent: stallPercent)
    }

    /// The lifecycle state the core holds for `app`.
    public func state(of app: String) -> AppState? {
        lifecycle.state(of: app)
    }

    /// The last status published for `app` (`unknown` before any).
    public func status(of app: String) -> AppStatus {
        notifier.status(of: app)
    }

    /// Whether the simulated process of `app` runs (suspended processes run too: they are in memory).
    public func isRunning(_ app: String) -> Bool {
        appIndex[app].map { apps[$0].launch != nil } ?? false
    }

    /// Sends the apps' known footprints and the first memory sample at time zero. Called by
    /// the first `advance`, `apply` or `send`; calling it again does nothing.
    public mutating func start() {
        guard !started else { return }
        started = true
        // The first fetch wakes count from the start of the run.
        for action in lifecycle.start(at: now) {
            carryOut(action)
        }
        for index in apps.indices where apps[index].facts.footprint != nil {
            pending.append(.footprint(app: apps[index].name, bytes: apps[index].footprint))
        }
        memoryChanged = scenario.memory != nil
        drain()
    }

    /// Continues from `lifecycle`, a core restored from a checkpoint (`Lifecycle(policy:checkpoint:at:)`),
    /// its armed timers queued at their deadlines; the core plans what it lacks at its next event.
    public mutating func continueFrom(_ lifecycle: Lifecycle) {
        self.lifecycle = lifecycle
        started = true
        for (timer, deadline) in lifecycle.armedTimers() {
            carryOut(.armTimer(timer, deadline: deadline))
        }
    }

    /// Fires every timer due at or before `time`, each at its own deadline, then sets the clock to
    /// `time` (never backwards).
    public mutating func advance(to time: Instant) {
        start()
        while let entry = queue.popDue(through: time) {
            if entry.deadline > now { now = entry.deadline }
            fire(entry)
        }
        if time > now { now = time }
    }

    /// Runs one step: first every timer due at or before its time, then the step itself.
    /// Returns the core's actions, or the refusal (also recorded in `record.refusals`).
    @discardableResult
    public mutating func apply(_ step: ScenarioStep) -> Result<[LifecycleAction], LifecycleError> {
        advance(to: step.time)
        if isTracing { trace.append(TraceEntry(time: now, kind: .step(step))) }
        let result = perform(step.verb, what: step.text)
        drain()
        return result
    }

    /// Feeds one event to the core now and carries out its actions (and what follows from them).
    @discardableResult
    public mutating func send(_ event: LifecycleEvent) -> Result<[LifecycleAction], LifecycleError> {
        start()
        let result = dispatch(event, what: nil)
        drain()
        return result
    }

    /// Checks an `at` expectation now and records it.
    @discardableResult
    public mutating func check(_ expectation: StateExpectation) -> SimulationRecord.StateCheck {
        let check = SimulationRecord.StateCheck(expectation: expectation, actual: lifecycle.state(of: expectation.app))
        record.stateChecks.append(check)
        if isTracing { trace.append(TraceEntry(time: now, kind: .check(expectation, actual: check.actual))) }
        return check
    }

    /// Replays the whole scenario: the steps in order, each `at` check after everything due at
    /// its time, and the timers up to the end time. Returns the record and the expectations' verdict.
    public mutating func run() -> SimulationResult {
        start()
        let timeline = scenario.timeline
        let steps = scenario.steps
        // Steps are handed on in place rather than copied one by one.
        steps.withUnsafeBufferPointer { buffer in
            for item in timeline {
                switch item {
                case .check(let expectation):
                    advance(to: expectation.time)
                    check(expectation)
                case .step(let index):
                    apply(buffer[index])
                }
            }
        }
        advance(to: scenario.endTime)
        return SimulationResult(
            scenario: scenario, record: record, trace: trace, endTime: now, eventCount: eventCount)
    }
}

/// Something due in virtual time.
enum Occurrence: Sendable {
    /// A timer the core armed.
    case timer(TimerID)
    /// Something simulated app `app` (an index into `apps`) does by itself.
    case app(Int, SimulatedApp.Doing)
}

/// The simulated runtime's view of one app: the app itself, and what its group holds.
struct SimulatedGroup: Sendable {
    /// The app: its process, and what it will do.
    var app: SimulatedApp
    /// The footprint a kill gives back; counted in memory while the process runs.
    var footprint: Int64
    /// What the watchdog's scans find.
    var scanOutcome: ScanOutcome = .foreground
    var isFrozen = false
    /// What compression (or a footprint step) moved of its footprint to swap.
    var swapped: Int64 = 0
    /// The RAM that swapped part takes.
    var swappedInRAM: Int64 = 0
    /// The memory stall of the current launch's group (`swap_in` after a thaw).
    var stall = StallCount()
    /// The CPU time the current launch's group has used (`cpu` steps set its rate).
    var cpuTime = CPUTimeCount()

    init(name: String, facts: AppFacts) {
        self.app = SimulatedApp(name: name, facts: facts)
        self.footprint = facts.footprint ?? 0
    }

    /// The app's name.
    var name: String { app.name }
    /// The app's scenario facts.
    var facts: AppFacts { app.facts }
    /// The launch number of the running process, nil when none runs.
    var launch: Int? { app.launch }
}

/// A simulated group's memory stall, as PSI counts it: the stalls that ended, and the one under
/// way, which counts up to the present.
struct StallCount: Sendable {
    /// The stalls that ended, in total.
    var ended: Duration = .zero
    /// The stall under way or last begun.
    var current: (start: Instant, end: Instant)?

    /// Begins a stall of `length` at `now` (the one under way is counted up to now first).
    mutating func begin(_ length: Duration, at now: Instant) {
        ended = total(at: now)
        current = length > .zero ? (now, now + length) : nil
    }

    /// The stall counted at `now`.
    func total(at now: Instant) -> Duration {
        guard let current else { return ended }
        return ended + (min(now, current.end) - current.start)
    }

    /// How long from `now` the stall under way lasts; zero when none is.
    func remaining(at now: Instant) -> Duration {
        guard let current, current.end > now else { return .zero }
        return current.end - now
    }
}
