import FoundationEssentials
import WardenCore
import WardenPlatform
import WardenPolicy

/// Turns a scenario document into a `Scenario`, collecting every problem on the way.
struct ScenarioReader {
    let file: String
    var diagnostics: [ScenarioDiagnostic] = []

    init(file: String) {
        self.file = file
    }

    mutating func report(_ line: Int?, key: String?, _ message: String) {
        diagnostics.append(ScenarioDiagnostic(file: file, line: line, key: key, message: message))
    }

    mutating func report(_ value: LocatedValue, _ message: String) {
        diagnostics.append(
            ScenarioDiagnostic(file: value.file, line: value.line, key: value.dottedKey, message: message))
    }

    mutating func unknownKey(_ value: LocatedValue, known: [String], in section: String) {
        let key = value.keyPath.last ?? ""
        let hint = ScenarioStepParser.suggestion(for: key, among: known)
        let list = known.joined(separator: ", ")
        report(value, "key \"\(value.dottedKey)\" is unknown\(hint); \(section) takes \(list).")
    }

    mutating func read(_ root: LocatedTable) -> Scenario? {
        for (key, value) in root.pairs where !ScenarioLoader.rootKeys.contains(key) {
            unknownKey(value, known: ScenarioLoader.rootKeys.map { "[\($0)]" }, in: "a scenario file")
        }
        for key in ScenarioLoader.rootKeys {
            if let value = root[key], value.table == nil {
                report(value, "key \"\(key)\" must be a table, such as [\(key)].")
            }
        }
        guard let header = root["scenario"]?.table else {
            if root["scenario"] == nil {
                report(nil, key: "scenario", "the file has no [scenario] table; it needs one with at least steps.")
            }
            return nil
        }
        for (key, value) in header.pairs where !ScenarioLoader.scenarioKeys.contains(key) {
            unknownKey(value, known: ScenarioLoader.scenarioKeys, in: "[scenario]")
        }

        let name = string(header["name"]) ?? defaultName()
        let memory = size(header["memory"], example: "2GiB", allowZero: false)
        let reserved = size(header["reserved"], example: "256MiB", allowZero: true) ?? 0
        if let memory, reserved >= memory, let value = header["reserved"] {
            report(
                value,
                "key \"scenario.reserved\" (\(DurationFormat.sizeString(reserved))) must be less than the device memory "
                    + "(\(DurationFormat.sizeString(memory))).")
        }
        let swap = size(header["swap"], example: "512MiB", allowZero: false)
        if swap != nil, memory == nil, let value = header["swap"] {
            report(value, "key \"scenario.swap\" needs the memory model: set scenario.memory too.")
        }
        var zramRatio: Double?
        if let value = header["zram_ratio"] {
            let number = value.float
            if let number, number >= 1, swap != nil {
                zramRatio = number
            } else if number == nil || number! < 1 {
                report(value, "key \"scenario.zram_ratio\" must be a number of at least 1, such as 2.5.")
            } else {
                report(value, "key \"scenario.zram_ratio\" needs swap: set scenario.swap too.")
            }
        }
        var until: Instant?
        if let value = header["until"] {
            if let text = value.string, let duration = DurationFormat.parse(text), duration >= .zero {
                until = Instant(sinceOrigin: duration)
            } else {
                report(value, "key \"scenario.until\" must be a duration such as \"1h\".")
            }
        }

        // The policy: base file, [policy] overrides, [apps].
        var base: LocatedDocument?
        var appNames: [String] = []
        if let value = header["policy"] {
            if let path = value.string, !path.isEmpty {
                let resolved = ScenarioLoader.policyPath(path, scenarioFile: file)
                do throws(ScenarioError) {
                    let text = try ScenarioLoader.read(resolved)
                    // A last line without its newline is still a line.
                    let complete = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
                    do throws(PolicyError) {
                        base = try LocatedDocument(text: complete, file: resolved, label: "Policy")
                    } catch {
                        diagnostics += ScenarioError(error).diagnostics
                    }
                } catch {
                    // The file could not be read: say so at the scenario's key.
                    let shown = resolved == path ? "\"\(path)\"" : "\"\(path)\" (\"\(resolved)\")"
                    for diagnostic in error.diagnostics {
                        report(value, "key \"scenario.policy\" names \(shown): \(diagnostic.message)")
                    }
                }
            } else {
                report(
                    value, "key \"scenario.policy\" must be a path to a policy file such as \"../policies/demo.toml\".")
            }
        }
        appNames += base?.root["apps"]?.table?.keys ?? []
        for key in root["apps"]?.table?.keys ?? [] where !appNames.contains(key) {
            appNames.append(key)
        }
        var policy: Policy?
        var rawFacts: [String: [String: LocatedValue]] = [:]
        do {
            let composed = try PolicyComposer.compose(
                base: base, overrides: root["policy"]?.table, apps: root["apps"]?.table, commandRequired: false,
                extraAppKeys: AppFacts.keys, label: "Scenario")
            policy = composed.policy
            rawFacts = composed.appFacts
            appNames = composed.policy.apps.map(\.name)
        } catch {
            diagnostics += ScenarioError(error).diagnostics
        }
        var facts: [String: AppFacts] = [:]
        for (app, keys) in rawFacts.sorted(by: { $0.key < $1.key }) {
            let appFacts = appFacts(keys)
            facts[app] = appFacts
            let declared = policy?.resources.keys.sorted() ?? []
            if let value = keys["holds_paths"] {
                for name in appFacts.holdsPaths.sorted() where !declared.contains(name) {
                    let list = declared.isEmpty ? "none are declared" : "declared: \(declared.joined(separator: ", "))"
                    report(
                        value,
                        "key \"\(value.dottedKey)\" names the undeclared resource \"\(name)\" (\(list)); "
                            + "declare it under [policy.resources.\(name)] with its paths.")
                }
            }
        }

        let steps = readSteps(header["steps"], apps: appNames)
        if let until, let last = steps.last, until < last.time, let value = header["until"] {
            report(
                value,
                "key \"scenario.until\" (\(TraceText.clock(until))) is earlier than the last step "
                    + "(\(last.label) at \(TraceText.clock(last.time))); "
                    + "the run must reach every step.")
        }
        let expectations = readExpectations(root["expect"]?.table, apps: appNames)
        if let until, let late = expectations.states.first(where: { $0.time > until }), let value = header["until"] {
            report(
                value,
                "key \"scenario.until\" (\(TraceText.clock(until))) is earlier than the check \"\(late.text)\" "
                    + "in expect.at; the run must reach every check.")
        }

        guard let policy else { return nil }
        return Scenario(
            name: name, policy: policy, file: file, memory: memory, reserved: reserved, swap: swap,
            zramRatio: zramRatio, until: until, steps: steps, facts: facts, expectations: expectations)
    }

    private func defaultName() -> String {
        PathText.deletingExtension(of: PathText.lastComponent(of: file))
    }

    // MARK: Values

    mutating func string(_ value: LocatedValue?) -> String? {
        guard let value else { return nil }
        guard let text = value.string else {
            report(value, "key \"\(value.dottedKey)\" must be a string, not \(value.typeDescription).")
            return nil
        }
        return text
    }

    mutating func size(_ value: LocatedValue?, example: String, allowZero: Bool) -> Int64? {
        guard let value else { return nil }
        guard let text = value.string, let bytes = DurationFormat.parseSize(text), !text.hasPrefix("-"),
            bytes > 0 || (allowZero && bytes == 0)
        else {
            let positive = allowZero ? "" : " greater than zero"
            report(value, "key \"\(value.dottedKey)\" must be a size\(positive) such as \"\(example)\".")
            return nil
        }
        return bytes
    }

    mutating func appFacts(_ keys: [String: LocatedValue]) -> AppFacts {
        var facts = AppFacts()
        if let value = keys["footprint"] {
            facts.footprint = size(value, example: "150MiB", allowZero: true)
        }
        for key in ["on_fetch", "on_push"] {
            guard let value = keys[key] else { continue }
            guard let text = value.string, let behavior = CompletionBehavior(parsing: text) else {
                report(
                    value,
                    "key \"\(value.dottedKey)\" must be \"complete newData|noData|failed after DURATION\" "
                        + "(such as \"complete newData after 1s\") or \"never\".")
                continue
            }
            if key == "on_fetch" { facts.onFetch = behavior } else { facts.onPush = behavior }
        }
        if let value = keys["on_expiration"] {
            if let text = value.string, let behavior = ExpirationBehavior(rawValue: text) {
                facts.onExpiration = behavior
            } else {
                report(value, "key \"\(value.dottedKey)\" must be \"end-tasks\" or \"ignore\".")
            }
        }
        if let value = keys["on_terminate"] {
            if let text = value.string, let behavior = TerminationBehavior(rawValue: text) {
                facts.onTerminate = behavior
            } else {
                report(value, "key \"\(value.dottedKey)\" must be \"exit\" or \"ignore\".")
            }
        }
        if let value = keys["launch_time"] {
            if let text = value.string, text == "never" {
                facts.launchTime = nil
            } else if let text = value.string, let duration = DurationFormat.parse(text), duration >= .zero {
                facts.launchTime = duration
            } else {
                report(value, "key \"\(value.dottedKey)\" must be a duration such as \"2s\", or \"never\".")
            }
        }
        if let value = keys["swap_in"] {
            if let text = value.string, let duration = DurationFormat.parse(text), duration >= .zero {
                facts.swapIn = duration
            } else {
                report(value, "key \"\(value.dottedKey)\" must be a duration such as \"20s\".")
            }
        }
        if let value = keys["holds_paths"] {
            let names = value.array?.compactMap(\.string)
            if let names, names.count == value.array?.count {
                facts.holdsPaths = Set(names)
            } else {
                report(value, "key \"\(value.dottedKey)\" must be an array of resource names such as [\"camera\"].")
            }
        }
        return facts
    }

    // MARK: Steps

    mutating func readSteps(_ value: LocatedValue?, apps: [String]) -> [ScenarioStep] {
        guard let value else { return [] }
        guard let elements = value.array else {
            report(value, "key \"scenario.steps\" must be an array of strings such as [\"0s open mail\"].")
            return []
        }
        let parser = ScenarioStepParser(apps: apps)
        var steps: [ScenarioStep] = []
        var previous: ScenarioStep?
        for (offset, element) in elements.enumerated() {
            let index = offset + 1
            guard let text = element.string else {
                report(
                    element.line, key: "scenario.steps",
                    "step \(index) must be a string such as \"10s open mail\", not \(element.typeDescription).")
                continue
            }
            let label = "step \(index) (\"\(Substring(text).trimmed())\")"
            do {
                let step = try parser.parse(text, index: index, line: element.line)
                if let previous, step.time < previous.time {
                    report(
                        element.line, key: "scenario.steps",
                        "\(label): the time \(step.time) is earlier than the \(previous.time) of step \(previous.index); "
                            + "steps must never go back in time.")
                }
                previous = step
                steps.append(step)
            } catch {
                report(element.line, key: "scenario.steps", "\(label): \(error.message)")
            }
        }
        return steps
    }
}
