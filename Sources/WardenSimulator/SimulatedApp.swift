public import WardenCore
public import WardenScenario

/// One simulated app as its own code behaves, the same in the simulator and in a replay through
/// the daemon, so that both play one app.
///
/// Its process runs its code `launch_time` after each spawn (never, for `"never"`); a
/// `readiness = "notify"` app then calls `ready`. A message that reaches the process before it
/// runs is held and answered once it runs, so a window's answer counts from then. The app
/// answers messages as its facts say (`AppFacts.reactions`), once the memory stall its group is
/// in is over, and keeps its open tasks by name for `end-task NAME`.
///
/// It reads no clock and makes no call itself: each change returns what the app will do and
/// when (`Doing`). The runner carries out at once what is due now and queues the rest; when a
/// queued doing comes due, it asks `isCurrent(_:)` before a call and `beginsToRun(_:)` for a run,
/// so that nothing is done for a launch that no longer runs.
///
/// ```swift
/// var mail = SimulatedApp(name: "mail", facts: AppFacts(launchTime: .seconds(2)))
/// let run = mail.spawned(1, readiness: .immediate, at: .zero)  // the process runs at 2s
/// let second = Instant(sinceOrigin: .seconds(1))
/// _ = mail.receive(.fetchStart(window: .seconds(30)), at: second, stalledFor: .zero)  // held
/// _ = mail.beginsToRun(run[0])  // at 2s: no call of its own
/// let answers = mail.answerHeldMessages(at: run[0].time, stalledFor: .zero)  // complete-fetch at 3s
/// ```
public struct SimulatedApp: Sendable {
    /// Something the app will do at a given time, as long as the same launch runs.
    public struct Doing: Sendable, Equatable {
        /// What the app does.
        public enum Kind: Sendable, Equatable {
            /// The process begins to run the app's code (`launch_time` after its spawn).
            case run
            /// The app makes a call by itself (`ready`, or an `AppReaction`).
            case call(LifecycleEvent)
        }

        /// When the app does it.
        public var time: Instant
        /// The launch whose process does it: if another runs by then, or none, nothing is done.
        public var launch: Int
        /// What the app does.
        public var kind: Kind

        public init(time: Instant, launch: Int, kind: Kind) {
            self.time = time
            self.launch = launch
            self.kind = kind
        }
    }

    /// The app's name.
    public let name: String
    /// How the app behaves: its scenario facts.
    public let facts: AppFacts
    /// The launch number of the running process, nil when none runs.
    public private(set) var launch: Int?
    /// Whether the process of `launch` runs its own code yet (`launch_time` after its spawn).
    public private(set) var runsCode = false
    /// Whether the process of `launch` calls `ready` once it runs (`readiness = "notify"`).
    var callsReady = false
    /// Messages that reached the process of `launch` before it ran, answered once it runs.
    var heldMessages: [AppMessage] = []
    /// Open tasks of `launch`, in the order they were begun.
    var tasks: [(id: Int, name: String)] = []

    /// An app not running yet, which behaves as `facts` say.
    public init(name: String, facts: AppFacts) {
        self.name = name
        self.facts = facts
    }

    /// The runtime spawned `launch` of the app, under `readiness` (nil: the policy does not
    /// name the app), and no earlier process of it runs any more. Returns when the process
    /// begins to run its code: `launch_time` from now, passive launches included; nothing for
    /// `launch_time = "never"`.
    public mutating func spawned(_ launch: Int, readiness: Readiness?, at now: Instant) -> [Doing] {
        self.launch = launch
        runsCode = false
        callsReady = readiness == .notify
        heldMessages = []
        tasks = []
        guard let delay = facts.launchTime else { return [] }
        return [Doing(time: now + delay, launch: launch, kind: .run)]
    }

    /// The app's process is gone: what reached it unanswered is lost, its tasks are closed, and
    /// what it meant to do is not done.
    public mutating func processEnded() {
        launch = nil
        runsCode = false
        heldMessages = []
        tasks = []
    }

    /// Whether `doing` is still the app's to do: the process of its launch still runs.
    public func isCurrent(_ doing: Doing) -> Bool {
        launch == doing.launch
    }

    /// The process of `run`'s launch begins to run the app's code, now. Returns the calls the
    /// app makes as it begins (`ready`, from a notify app), for the runner to make after it has
    /// reported the process running; nil when that launch no longer runs. What the app held is
    /// answered next, by `answerHeldMessages(at:stalledFor:)`.
    public mutating func beginsToRun(_ run: Doing) -> [LifecycleEvent]? {
        guard isCurrent(run) else { return nil }
        runsCode = true
        return callsReady ? [.ready(app: name)] : []
    }

    /// Answers what reached the process before it ran, in the order it came, as `receive` answers
    /// a message now; nothing until the process runs.
    public mutating func answerHeldMessages(at now: Instant, stalledFor stall: Duration) -> [Doing] {
        guard let launch, runsCode, !heldMessages.isEmpty else { return [] }
        let held = heldMessages
        heldMessages = []
        var doings: [Doing] = []
        for message in held {
            answer(message, launch: launch, at: now, stalledFor: stall, into: &doings)
        }
        return doings
    }

    /// A message reaches the app now, its group stalled on memory for `stall` more: returns the
    /// calls its facts make it answer with (`AppFacts.reactions`), each after its own delay and
    /// the stall. A process that does not run its code yet holds the message; when none runs,
    /// nothing answers.
    public mutating func receive(_ message: AppMessage, at now: Instant, stalledFor stall: Duration) -> [Doing] {
        guard let launch else { return [] }
        guard runsCode else {
            heldMessages.append(message)
            return []
        }
        var doings: [Doing] = []
        answer(message, launch: launch, at: now, stalledFor: stall, into: &doings)
        return doings
    }

    /// Adds the app's answers to `message` to `doings`. A task the app will end no longer
    /// answers to its name.
    mutating func answer(
        _ message: AppMessage, launch: Int, at now: Instant, stalledFor stall: Duration, into doings: inout [Doing]
    ) {
        for case .call(let call, let reaction) in facts.reactions(to: message, of: name) {
            doings.append(Doing(time: now + (reaction + stall), launch: launch, kind: .call(call)))
            if case .endTask(_, let id) = call { taskEnded(id) }
        }
    }

    /// The app began task `id` under `name` (`begin-task NAME`).
    public mutating func taskBegun(_ id: Int, named name: String) {
        tasks.append((id, name))
    }

    /// The app ended task `id`: it no longer answers to its name.
    public mutating func taskEnded(_ id: Int) {
        tasks.removeAll { $0.id == id }
    }

    /// The id of the task `end-task` names for app `app`, whose model is `simulated` (nil: the
    /// app is not simulated): an id as written, a name that of the first open task begun under
    /// it; `noOpenTask` when none is.
    public static func taskID(
        _ reference: TaskReference, of app: String, in simulated: SimulatedApp?
    ) -> Result<Int, LifecycleError> {
        switch reference {
        case .id(let id):
            return .success(id)
        case .name(let name):
            guard let task = simulated?.tasks.first(where: { $0.name == name }) else {
                return .failure(.noOpenTask(named: name, of: app))
            }
            return .success(task.id)
        }
    }
}
