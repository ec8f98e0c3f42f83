import WardenCore
import WardenPolicy

extension ScenarioReader {
    /// The keys of `[expect]`.
    static let expectKeys = ["kill_order", "terminations", "analytics", "status", "launches", "refused", "at"]

    /// The analytics events `[expect] analytics` may list (`$AppTerminated` goes in `terminations`).
    static let analyticsNames = ["$AppStart", "$AppEnd", "$AppStartPassively"]

    mutating func readExpectations(_ table: LocatedTable?, apps: [String]) -> ScenarioExpectations {
        var expectations = ScenarioExpectations()
        guard let table else { return expectations }
        for (key, value) in table.pairs where !Self.expectKeys.contains(key) {
            unknownKey(value, known: Self.expectKeys, in: "[expect]")
        }
        expectations.killOrder = entries(table["kill_order"], example: "[\"maps\", \"mail\"]") { reader, words, _ in
            guard words.count == 1 else { return "must be one app's name" }
            return reader.unknownApp(words[0], apps: apps)
        }
        expectations.terminations = entries(table["terminations"], example: "[\"maps memoryPressure\"]") {
            reader, words, _ in
            guard words.count == 2 else { return "must be \"APP reason\", such as \"maps memoryPressure\"" }
            if let problem = reader.unknownApp(words[0], apps: apps) { return problem }
            return reader.unknownChoice(
                words[1], what: "termination reason", among: TerminationReason.allCases.map(\.rawValue))
        }
        expectations.analytics = entries(table["analytics"], example: "[\"$AppStart mail\"]") { reader, words, _ in
            guard words.count == 2 else { return "must be \"$Event APP\", such as \"$AppStart mail\"" }
            if words[0] == "$AppTerminated" {
                return "lists $AppTerminated, which is checked by \"terminations\" (\"APP reason\") instead"
            }
            if let problem = reader.unknownChoice(words[0], what: "analytics event", among: Self.analyticsNames) {
                return problem
            }
            return reader.unknownApp(words[1], apps: apps)
        }
        expectations.status = entries(table["status"], example: "[\"mail foreground\"]") { reader, words, _ in
            guard words.count == 2 else { return "must be \"APP status\", such as \"mail foreground\"" }
            if let problem = reader.unknownApp(words[0], apps: apps) { return problem }
            return reader.unknownChoice(words[1], what: "status", among: AppStatus.allCases.map(\.description))
        }
        expectations.launches = entries(table["launches"], example: "[\"mail user\", \"mail user restore\"]") {
            reader, words, _ in
            guard words.count == 2 || (words.count == 3 && words[2] == "restore") else {
                return "must be \"APP reason\" or \"APP reason restore\", such as \"mail user restore\""
            }
            if let problem = reader.unknownApp(words[0], apps: apps) { return problem }
            return reader.unknownChoice(words[1], what: "launch reason", among: LaunchReason.allCases.map(\.rawValue))
        }
        expectations.refused = entries(table["refused"], example: "[\"30s open mail conflict\"]") {
            reader, words, _ in
            guard words.count >= 3 else {
                return "must be \"TIME STEP CODE\", such as \"30s open mail conflict\""
            }
            guard (try? ScenarioStepParser.parseTime(words[0])) != nil else {
                return "has the time \"\(words[0])\", which must be a duration such as \"9s\" or \"15m5s\""
            }
            return reader.unknownChoice(
                words[words.count - 1], what: "error code", among: LifecycleError.Code.allCases.map(\.rawValue))
        }
        // Times as the record prints them, so that "0.5s" and "500ms" compare equal.
        expectations.refused = expectations.refused?.map { entry in
            var words = entry.split(separator: " ").map(String.init)
            if let time = try? ScenarioStepParser.parseTime(words[0]) { words[0] = TraceText.clock(time) }
            return words.joined(separator: " ")
        }
        var states: [StateExpectation] = []
        _ = entries(table["at"], example: "[\"9s mail suspended\"]") { reader, words, line in
            guard words.count == 3 else { return "must be \"TIME APP STATE\", such as \"9s mail suspended\"" }
            guard let time = try? ScenarioStepParser.parseTime(words[0]) else {
                return "has the time \"\(words[0])\", which must be a duration such as \"9s\" or \"15m5s\""
            }
            if let problem = reader.unknownApp(words[1], apps: apps) { return problem }
            if let problem = reader.unknownChoice(
                words[2], what: "state", among: AppState.allCases.map(\.rawValue))
            {
                return problem
            }
            states.append(StateExpectation(time: time, app: words[1], state: AppState(rawValue: words[2])!, line: line))
            return nil
        }
        expectations.states = states
        return expectations
    }

    /// Reads an array of strings, checking each entry's words with `check` (which returns the
    /// problem in words, or nil). Entries are kept with their words joined by single spaces.
    mutating func entries(
        _ value: LocatedValue?, example: String, check: (inout ScenarioReader, [String], Int) -> String?
    ) -> [String]? {
        guard let value else { return nil }
        guard let elements = value.array else {
            report(value, "key \"\(value.dottedKey)\" must be an array of strings such as \(example).")
            return nil
        }
        var entries: [String] = []
        for (offset, element) in elements.enumerated() {
            guard let text = element.string else {
                report(
                    element,
                    "key \"\(value.dottedKey)\" entry \(offset + 1) must be a string, not \(element.typeDescription).")
                continue
            }
            let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
            if let problem = check(&self, words, element.line) {
                report(element, "key \"\(value.dottedKey)\" entry \(offset + 1) (\"\(text)\") \(problem).")
                continue
            }
            entries.append(words.joined(separator: " "))
        }
        return entries
    }

    func unknownApp(_ name: String, apps: [String]) -> String? {
        guard !apps.contains(name) else { return nil }
        return "names the unknown app \"\(name)\"\(ScenarioStepParser.suggestion(for: name, among: apps))"
    }

    func unknownChoice(_ word: String, what: String, among choices: [String]) -> String? {
        guard !choices.contains(word) else { return nil }
        return "has the unknown \(what) \"\(word)\"\(ScenarioStepParser.suggestion(for: word, among: choices)); "
            + "expected one of \(choices.joined(separator: ", "))"
    }
}
