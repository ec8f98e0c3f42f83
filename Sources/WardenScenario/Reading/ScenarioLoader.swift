import FoundationEssentials
import WardenCore
import WardenPlatform
import WardenPolicy

/// Reads scenario files (DESIGN §3): `[scenario]`, `[policy.*]` overrides, `[apps.NAME]`
/// with simulation facts, and `[expect]`.
///
/// Every problem is collected, each naming its file, line and key, or its step:
/// `Scenario "kill.toml", line 7: step 3 ("10s opne mail"): unknown verb "opne"; …`.
public enum ScenarioLoader {
    /// Reads and parses the scenario file at `path`; its `policy` path is relative to it.
    public static func load(path: String) throws(ScenarioError) -> Scenario {
        try parse(text: read(path), file: path)
    }

    /// Parses scenario text. `file` names it in messages, and its directory is where a
    /// relative `policy` path is looked up.
    public static func parse(text: String, file: String) throws(ScenarioError) -> Scenario {
        let document: LocatedDocument
        // A last line without its newline is still a line.
        let complete = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
        do {
            document = try LocatedDocument(text: complete, file: file, label: "Scenario")
        } catch {
            throw ScenarioError(error)
        }
        return try scenario(from: document, file: file)
    }

    /// The keys of `[scenario]`.
    public static let scenarioKeys = ["name", "policy", "memory", "reserved", "swap", "zram_ratio", "until", "steps"]
    /// The tables of a scenario file's root.
    public static let rootKeys = ["scenario", "policy", "apps", "expect"]

    static func scenario(from document: LocatedDocument, file: String) throws(ScenarioError) -> Scenario {
        var reader = ScenarioReader(file: file)
        let scenario = reader.read(document.root)
        guard reader.diagnostics.isEmpty, let scenario else {
            throw ScenarioError(ordered(reader.diagnostics))
        }
        return scenario
    }

    /// Reads a UTF-8 text file, turning every failure into a sentence (`TextFile`).
    static func read(_ path: String) throws(ScenarioError) -> String {
        switch TextFile.read(path) {
        case .success(let text): return text
        case .failure(let failure): throw ScenarioError(file: path, message: failure.sentence)
        }
    }

    /// Diagnostics grouped by file (in order of first appearance), each file's in order of line.
    static func ordered(_ diagnostics: [ScenarioDiagnostic]) -> [ScenarioDiagnostic] {
        var files: [String] = []
        for diagnostic in diagnostics where !files.contains(diagnostic.file) {
            files.append(diagnostic.file)
        }
        return files.flatMap { file in
            diagnostics.enumerated().filter { $0.element.file == file }
                .sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
                .map(\.element)
        }
    }

    /// Where `policy` points: relative paths start at the scenario file's directory.
    static func policyPath(_ path: String, scenarioFile: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        return PathText.joining(PathText.directory(of: scenarioFile), path)
    }
}

extension ScenarioError {
    /// The policy layer's diagnostics, kept as they are.
    init(_ error: PolicyError) {
        self.init(
            error.diagnostics.map {
                ScenarioDiagnostic(file: $0.file, line: $0.line, key: $0.key, message: $0.message, subject: $0.label)
            })
    }
}
