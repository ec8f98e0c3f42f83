/// One thing wrong with a policy or scenario file: where it is and what is expected instead.
///
/// Its description reads `Policy "kiosk.toml", line 12: key "fetch.window" must be a
/// duration such as "30s".`
public struct PolicyDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// The file, as it was named when it was loaded.
    public var file: String
    /// The 1-based line, when the problem has one.
    public var line: Int?
    /// The full dotted key (`apps.mail.fetch_interval`), when the problem concerns a key.
    public var key: String?
    /// A full sentence saying what is wrong and what is expected.
    public var message: String
    /// The kind of file, first word of the description: "Policy" or "Scenario".
    public var label: String

    public init(file: String, line: Int?, key: String?, message: String, label: String = "Policy") {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.label = label
    }

    public var description: String {
        if let line {
            return "\(label) \"\(file)\", line \(line): \(message)"
        }
        return "\(label) \"\(file)\": \(message)"
    }
}
