/// One problem found in a scenario file, with the file, line and key it concerns.
public struct ScenarioDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The file, as it was named when it was loaded.
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The full dotted key (`scenario.steps`, `expect.kill_order`, `apps.mail.footprint`), when known.
    public var key: String?
    /// A full sentence saying what is wrong and what is expected.
    public var message: String
    /// The word that starts the description: "Scenario", or "Policy" for a problem in a policy file.
    public var subject: String

    public init(file: String, line: Int?, key: String?, message: String, subject: String = "Scenario") {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.subject = subject
    }

    /// `Scenario "kill.toml", line 7: step 3 ("10s opne mail"): unknown verb "opne"; …`
    public var description: String {
        if let line {
            return "\(subject) \"\(file)\", line \(line): \(message)"
        }
        return "\(subject) \"\(file)\": \(message)"
    }
}
