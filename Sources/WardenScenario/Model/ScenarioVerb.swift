public import WardenCore

/// What one scenario step does: a core event as written, or what only a scenario can say.
///
/// Operator verbs, app calls and the facts a step states (`footprint`, `pressure`) are the
/// core's own `LifecycleEvent`s: the simulator and the daemon hand them to the core as they
/// are. The other cases need the simulated world first: a task named by its name, a process
/// that crashes or exits, what the watchdog's scans will find.
public enum ScenarioVerb: Sendable, Equatable {
    /// An event the core takes as the step writes it.
    case event(LifecycleEvent)
    /// `APP end-task TASK`: the task by the id `begin-task` returned or by the name it was
    /// begun with, which the runner turns into the id the core takes.
    case endTask(app: String, task: TaskReference)
    /// The app's process dies on its own with a failure.
    case crash(app: String)
    /// The app's process exits on its own with status 0.
    case exit(app: String)
    /// What the watchdog's next scans of the app find.
    case scan(app: String, outcome: ScanOutcome)
    /// The device's memory stall (PSI `full avg10`, in percent) that memory samples report from
    /// now on, under the memory model with swap.
    case stall(percent: Double)
    /// The CPU the app's processes use from now on while they run, in percent of one CPU
    /// (`cpu APP 90%`; 100 is a whole core).
    case cpu(app: String, percent: Int)

    /// The app the step is about, if it names one.
    public var app: String? {
        switch self {
        case .event(let event): event.app
        case .endTask(let app, _), .crash(let app), .exit(let app), .scan(let app, _), .cpu(let app, _): app
        case .stall: nil
        }
    }
}

/// How `end-task` names the task: by the id `begin-task` returned, or by the name it was begun with.
public enum TaskReference: Sendable, Hashable, CustomStringConvertible {
    case id(Int)
    case name(String)

    public var description: String {
        switch self {
        case .id(let id): "\(id)"
        case .name(let name): name
        }
    }
}
