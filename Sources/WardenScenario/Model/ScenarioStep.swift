public import WardenCore

/// One timed step of a scenario: `"TIME VERB ARGS"`.
public struct ScenarioStep: Sendable, Equatable {
    /// When the step happens, in virtual time from the start of the run.
    public var time: Instant
    /// What the step does.
    public var verb: ScenarioVerb
    /// The 1-based position of the step in the scenario's `steps` (0 for a step built in code).
    public var index: Int
    /// The line of the scenario file the step is written on, if it comes from a file.
    public var line: Int?
    /// The step as written (or a rendering of it for a step built in code).
    public var text: String

    public init(time: Instant, verb: ScenarioVerb, index: Int = 0, line: Int? = nil, text: String? = nil) {
        self.time = time
        self.verb = verb
        self.index = index
        self.line = line
        self.text = text ?? "\(TraceText.clock(time)) \(verb)"
    }

    /// How messages name the step: `step 3 ("10s open mail")`.
    public var label: String {
        index > 0 ? "step \(index) (\"\(text)\")" : "step \"\(text)\""
    }
}
