import FoundationEssentials
public import WardenAPI
import WardenCore

/// A window of the journal written as a scenario file (`appwarden export`): the policy in force
/// inline, every input the journal kept as a step at its time from the start, and `[expect]`
/// filled with what happened, so that `appwarden simulate` replays the day and checks it.
///
/// The window starts at `since` (default: the daemon's last start at or before `until`); when the
/// daemon started inside the window before any input, it starts there, since fetch wakes count
/// from the start. A policy reload or a restart of the daemon after the first input ends the
/// export there, and the file says so. What a replay cannot reproduce (a kernel OOM kill inside
/// an app's group, a failed launch, a resource held through a path, an app already running at
/// the start) is named in a comment, and the expectations it would make wrong are left out: with
/// an app already running at the start (a window that begins at a restart which re-adopted it),
/// every one, since the replay starts with no app running and so neither has it nor ranks the
/// others beside it; an export passes its own replay.
public struct ScenarioExport: Sendable {
    /// Where the window begins, milliseconds since the Unix epoch; nil for the daemon's last start.
    public var since: Int64?
    /// Where it ends, milliseconds since the Unix epoch; nil for the last entry.
    public var until: Int64?

    public init(since: Int64? = nil, until: Int64? = nil) {
        self.since = since
        self.until = until
    }

    /// The facts every exported app gets: its own calls are steps, so it answers nothing by itself.
    static let appFacts = [
        "on_fetch = \"never\"         # the app's own complete-fetch calls are steps",
        "on_push = \"never\"          # the app's own complete-push calls are steps",
        "on_expiration = \"ignore\"   # the app's own end-task calls are steps",
    ]

    /// Where the window of `entries` (oldest first) begins: `since`, or the last daemon start at
    /// or before `until`, or the first entry.
    public func origin(of entries: [JournalEntry]) -> Int64? {
        if let since { return since }
        let end = until ?? .max
        let start = entries.last { entry in
            guard entry.wallTimeMillis <= end, case .system(.daemonStarted) = entry.event else { return false }
            return true
        }
        return start?.wallTimeMillis ?? entries.first?.wallTimeMillis
    }

    /// The scenario file for `entries`, oldest first: the entries of the window, and before it at
    /// least the policy input in force at its start.
    ///
    /// - Throws: `ScenarioExportError` when the journal holds nothing in the window, or no policy
    ///   in force at its start.
    public func scenario(from entries: [JournalEntry]) throws(ScenarioExportError) -> String {
        guard var origin = origin(of: entries) else {
            throw ScenarioExportError("The journal holds no entries to export.")
        }
        let end = until ?? .max
        if end < origin {
            throw ScenarioExportError(
                "The window ends (\(Explanation.timestamp(end))) before it begins (\(Explanation.timestamp(origin))).")
        }
        var window = Window()
        for entry in entries where entry.wallTimeMillis <= end {
            if entry.wallTimeMillis < origin {
                window.takeBefore(entry)
                continue
            }
            if !window.take(entry, origin: &origin) { break }
        }
        guard let policy = window.policy else {
            throw ScenarioExportError(
                "The journal holds no policy in force at \(Explanation.timestamp(origin)). A daemon journals its policy "
                    + "when it starts and at every reload; export a window that begins at or after such a start.")
        }
        let last = window.cut?.time ?? (until ?? max(origin, window.lastTime))
        return render(window, policy: policy, origin: origin, end: last)
    }

    private func render(_ window: Window, policy: (path: String, text: String), origin: Int64, end: Int64) -> String {
        var lines: [String] = []
        lines.append(
            "# The journal of appwarden from \(Explanation.timestamp(origin)) to \(Explanation.timestamp(end)), "
                + "exported as a scenario.")
        lines.append("# Replay it with `appwarden simulate FILE`; `appwarden simulate --compare CANDIDATE.toml FILE`")
        lines.append("# says what another policy would have done.")
        lines.append("# Every input is a step at its time from the start, in milliseconds. The device's memory and")
        lines.append("# the apps' footprints are those measured at the moments that decided something. Launches")
        lines.append("# are replayed as immediate: an app is ready as soon as its process runs.")
        if let cut = window.cut {
            lines.append("# The export ends at \(Explanation.timestamp(cut.time)): \(cut.reason).")
        }
        var notes = window.notes
        let running = window.runningAtStart.sorted()
        if !running.isEmpty {
            notes.append(
                "already running at the start, which the replay cannot reproduce: \(running.joined(separator: ", "))")
        }
        if !notes.isEmpty {
            lines.append(
                running.isEmpty
                    ? "# Not reproduced by the simulator, so terminations, analytics and status are not expected:"
                    : "# Not reproduced by the simulator, so nothing is expected (the replay starts with no app running):"
            )
            for note in notes {
                lines.append("#   \(note)")
            }
        }
        lines.append("")
        lines.append("[scenario]")
        lines.append("name = \(Self.quoted("journal from \(Explanation.timestamp(origin))"))")
        lines.append("until = \"\(max(0, end - origin))ms\"")
        lines.append("steps = [")
        for text in window.carried.keys.sorted().compactMap({ window.carried[$0] }) {
            lines.append("  \(Self.quoted("0ms \(text)")),")
        }
        for step in window.steps {
            lines.append("  \(Self.quoted("\(step.time - origin)ms \(step.text)")),")
        }
        lines.append("]")
        lines.append("")
        lines.append("# The policy in force, from \(Self.quoted(policy.path)).")
        lines += Self.inline(policy: policy.text, facts: Self.appFacts)
        lines.append("")
        lines.append("[expect]")
        if running.isEmpty {
            lines.append("kill_order = \(Self.array(window.killOrder))")
        }
        if notes.isEmpty {
            lines.append("terminations = \(Self.array(window.terminations))")
            lines.append("analytics = \(Self.array(window.analytics))")
            lines.append("status = \(Self.array(window.status))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the window collects, entry by entry.
    struct Window {
        var policy: (path: String, text: String)?
        var steps: [(time: Int64, text: String)] = []
        var killOrder: [String] = []
        var terminations: [String] = []
        var analytics: [String] = []
        var status: [String] = []
        var notes: [String] = []
        var runningAtStart: Set<String> = []
        var appsSeen: Set<String> = []
        var cut: (time: Int64, reason: String)?
        var lastTime: Int64 = 0
        /// The last `footprint` step of each app before the window, under the policy in force at
        /// its start: the daemon journals a footprint only when it changed, and a replay keeps
        /// each until a step changes it. By app.
        var carried: [String: String] = [:]

        var hasInputs: Bool { !steps.isEmpty }

        /// Takes one entry from before the window: the policy in force, and the footprints.
        mutating func takeBefore(_ entry: JournalEntry) {
            switch entry.event {
            case .input(.policy(let path, let text)):
                policy = (path, text)
                carried = [:]
            case .system(.daemonStarted):
                carried = [:]
            case .input(.step(let text)) where text.hasPrefix("footprint "):
                let words = text.split(separator: " ")
                if words.count == 3 { carried[String(words[1])] = text }
            default:
                break
            }
        }

        /// Takes one entry of the window; false when the export ends before it.
        mutating func take(_ entry: JournalEntry, origin: inout Int64) -> Bool {
            let time = entry.wallTimeMillis
            switch entry.event {
            case .input(.policy(let path, let text)):
                guard !hasInputs else {
                    cut = (time, "the policy was reloaded, and a scenario runs under one policy")
                    return false
                }
                policy = (path, text)
                carried = [:]
            case .system(.policyReloaded):
                guard !hasInputs else {
                    cut = (time, "the policy was reloaded, and a scenario runs under one policy")
                    return false
                }
            case .system(.daemonStarted(_, let readopted)):
                guard !hasInputs else {
                    cut = (time, "the daemon restarted, and a scenario cannot carry what it re-adopted")
                    return false
                }
                // The day starts with the daemon: fetch wakes count from its start.
                self = Window(policy: policy)
                origin = time
                runningAtStart = Set(readopted)
            case .input(.step(let text)):
                // What the watchdog's scans find is set before the scan that found it.
                let at = text.hasPrefix("scan ") ? (steps.last?.time ?? origin) : time
                steps.append((at, text))
            case .input(.unreplayable(let text)):
                notes.append("at \(Explanation.timestamp(time)): \(text)")
            case .analytics(.appTerminated(let reason)):
                terminations.append("\(entry.app) \(reason.rawValue)")
                if reason == .memoryPressure { killOrder.append(entry.app) }
            case .analytics(let event):
                analytics.append("\(event.name) \(entry.app)")
            case .status(let published):
                status.append("\(entry.app) \(published)")
            case .stateChange(let from, _, _):
                if !appsSeen.contains(entry.app) {
                    appsSeen.insert(entry.app)
                    if from != .notRunning { runningAtStart.insert(entry.app) }
                }
            default:
                break
            }
            lastTime = time
            return true
        }
    }

    /// The policy file's text as a scenario's tables: its top-level keys under `[policy]`, its
    /// global tables under `[policy.…]`, its `[apps.NAME]` tables as they are with `facts` added
    /// to each.
    static func inline(policy text: String, facts: [String]) -> [String] {
        var lines: [String] = []
        var inHeaderlessTop = true
        var openQuote: String?
        var appsWithTable: Set<String> = []
        var appsNamed: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingSpaces()
            if let quote = openQuote {
                lines.append(line)
                if trimmed.contains(quote) { openQuote = nil }
                continue
            }
            for quote in ["\"\"\"", "'''"] where trimmed.components(separatedBy: quote).count == 2 {
                openQuote = quote
            }
            guard trimmed.hasPrefix("["), let header = tableName(trimmed) else {
                if inHeaderlessTop, !trimmed.isEmpty, !trimmed.hasPrefix("#") {
                    lines.append("[policy]")
                    inHeaderlessTop = false
                }
                lines.append(line)
                continue
            }
            inHeaderlessTop = false
            let isArray = trimmed.hasPrefix("[[")
            let parts = header.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if parts.first == "apps" {
                lines.append(line)
                if parts.count >= 2, !appsNamed.contains(parts[1]) { appsNamed.append(parts[1]) }
                if parts.count == 2, !isArray {
                    appsWithTable.insert(parts[1])
                    lines += facts
                }
            } else {
                lines.append(isArray ? "[[policy.\(header)]]" : "[policy.\(header)]")
            }
        }
        while lines.last?.trimmingSpaces().isEmpty == true { lines.removeLast() }
        for app in appsNamed where !appsWithTable.contains(app) {
            lines.append("")
            lines.append("[apps.\(app)]")
            lines += facts
        }
        return lines
    }

    /// The name inside a table header line (`[memory]` → `memory`), nil when the line is not one.
    static func tableName(_ line: String) -> String? {
        var text = Substring(line)
        if let comment = text.firstIndex(of: "#") { text = text[..<comment] }
        var name = String(text).trimmingSpaces()
        let isArray = name.hasPrefix("[[") && name.hasSuffix("]]")
        guard isArray || (name.hasPrefix("[") && name.hasSuffix("]")) else { return nil }
        name = String(name.dropFirst(isArray ? 2 : 1).dropLast(isArray ? 2 : 1)).trimmingSpaces()
        guard !name.isEmpty, !name.contains("\""), !name.contains("'") else { return nil }
        return name.split(separator: ".").map { String($0).trimmingSpaces() }.joined(separator: ".")
    }

    /// `["a", "b"]`, one item a line when there are several.
    static func array(_ items: [String]) -> String {
        guard !items.isEmpty else { return "[]" }
        return "[\n" + items.map { "  \(quoted($0)),\n" }.joined() + "]"
    }

    /// A TOML basic string.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// Why a window of the journal could not be exported: a sentence.
public struct ScenarioExportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        let characters = Array(self)
        guard let start = characters.firstIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" }),
            let end = characters.lastIndex(where: { $0 != " " && $0 != "\t" && $0 != "\r" })
        else { return "" }
        return String(characters[start...end])
    }
}
