import WardenCore

/// Turns a located policy table into a `Policy`, collecting every problem on the way.
///
/// Nothing stops at the first problem: a bad value is reported and its default kept, so
/// that the rest of the file is still checked.
struct PolicyValidator {
    var commandRequired: Bool
    var extraAppKeys: Set<String>
    var baseFile: String?
    var label: String
    var diagnostics: [PolicyDiagnostic] = []

    /// The keys of a policy file's root.
    static let rootKeys = [
        "foreground_slots", "background", "fetch", "push", "memory", "watchdog", "termination", "launch",
        "restoration", "resources", "apps", "limits", "journal", "logs", "hooks", "cpu",
    ]

    init(commandRequired: Bool, extraAppKeys: Set<String>, baseFile: String?, label: String) {
        self.commandRequired = commandRequired
        self.extraAppKeys = extraAppKeys
        self.baseFile = baseFile
        self.label = label
    }

    /// Builds the policy and the apps' extra keys; problems go to `diagnostics`, in file order.
    mutating func policy(from root: LocatedTable) -> (policy: Policy, appFacts: [String: [String: LocatedValue]]) {
        var policy = Policy()
        for (key, value) in root.pairs where !Self.rootKeys.contains(key) {
            reportUnknown(value, known: Self.rootKeys, place: "a policy file's root")
        }
        if let slots = root["foreground_slots"] {
            if let number = integer(slots, atLeast: 1, example: "1") { policy.foregroundSlots = number }
        }
        let global = timing(in: root, base: TimingSettings(), appName: nil)
        checkTimingRules(global, global: nil)
        policy.settings = global.settings
        policy.memory = memorySettings(in: root)
        policy.resources = resources(in: root)
        policy.limits = limitSettings(in: root)
        policy.cpu = cpuSettings(in: root, base: CPUSettings())
        policy.journal = journalRetention(in: root)
        policy.logs = appLogSettings(in: root)
        policy.hooks = hookSettings(in: root)
        var appFacts: [String: [String: LocatedValue]] = [:]
        if let appsValue = root["apps"] {
            if let apps = appsValue.table {
                for (name, value) in apps.pairs {
                    guard let parsed = app(named: name, value: value, policy: policy, global: global) else { continue }
                    policy.apps.append(parsed.app)
                    if !parsed.facts.isEmpty { appFacts[name] = parsed.facts }
                }
            } else {
                report(appsValue, "key \"\(appsValue.dottedKey)\" must hold one table per app, such as [apps.mail].")
            }
        }
        diagnostics = Self.fileOrdered(diagnostics)
        return (policy, appFacts)
    }

    // MARK: - Reporting

    /// Records a problem with `value`, at its file and line, under its key.
    mutating func report(_ value: LocatedValue, _ message: String) {
        report(file: value.file, line: value.line, key: value.dottedKey, message)
    }

    /// Records a problem at an explicit place.
    mutating func report(file: String, line: Int?, key: String?, _ message: String) {
        let kind = file == baseFile ? "Policy" : label
        diagnostics.append(PolicyDiagnostic(file: file, line: line, key: key, message: message, label: kind))
    }

    /// Reports an unknown key, with a "did you mean" when a known key is close.
    mutating func reportUnknown(_ value: LocatedValue, known: [String], place: String) {
        let key = value.keyPath.last ?? ""
        let prefix = Array(value.keyPath.dropLast())
        if let suggestion = KeySuggestion.closest(to: key, among: known) {
            let suggested = LocatedValue.dotted(prefix + [suggestion])
            report(value, "key \"\(value.dottedKey)\" is unknown; did you mean \"\(suggested)\"?")
        } else {
            report(value, "key \"\(value.dottedKey)\" is unknown; \(place) takes \(KeySuggestion.list(known)).")
        }
    }

    /// Groups diagnostics by file (files in order of first appearance) and sorts each file's by line.
    static func fileOrdered(_ diagnostics: [PolicyDiagnostic]) -> [PolicyDiagnostic] {
        var files: [String] = []
        for diagnostic in diagnostics where !files.contains(diagnostic.file) { files.append(diagnostic.file) }
        return files.flatMap { file in
            diagnostics.enumerated()
                .filter { $0.element.file == file }
                .sorted { lhs, rhs in
                    let left = lhs.element.line ?? 0
                    let right = rhs.element.line ?? 0
                    return left != right ? left < right : lhs.offset < rhs.offset
                }
                .map(\.element)
        }
    }
}
