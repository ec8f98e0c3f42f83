import WardenCore

extension ScenarioVerb: CustomStringConvertible {
    /// The verb as a step writes it: `open mail`, `mail begin-task sync`, `pressure critical`.
    public var description: String {
        switch self {
        case .event(let event): Self.stepText(of: event)
        case .endTask(let app, let task): "\(app) end-task \(task)"
        case .crash(let app): "\(app) crash"
        case .exit(let app): "\(app) exit"
        case .scan(let app, let outcome): "scan \(app) \(outcome.rawValue)"
        case .stall(let percent): "stall \(percent)%"
        case .cpu(let app, let percent): "cpu \(app) \(percent)%"
        }
    }

    /// How a step writes `event`, sizes rounded; events no step writes (timers, runtime facts)
    /// as the trace prints them.
    static func stepText(of event: LifecycleEvent) -> String {
        let size = DurationFormat.sizeString
        if case .memorySample(_, _, let swap?) = event {
            return (event.stepText(size: size) ?? "") + " swap \(size(swap.free)) of \(size(swap.total))"
        }
        return event.stepText(size: size) ?? TraceText.event(event)
    }
}
