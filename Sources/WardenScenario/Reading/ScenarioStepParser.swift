public import WardenCore
import WardenPolicy

/// Parses scenario steps, `"TIME VERB ARGS"`, against the apps a scenario knows.
///
/// TIME is a number (decimals allowed) followed by `ms`, `s`, `m` or `h`. Operator verbs and
/// simulation facts come first (`open mail`, `pressure critical`); app calls start with the
/// app (`mail begin-task sync`). `push APP JSON` takes everything after APP as the payload;
/// APP may also be a device token (`tok-APP-N`, as `register-push` returns them).
/// `accessory ACTION JSON` is a device event: its udev properties as one JSON object of strings.
public struct ScenarioStepParser: Sendable {
    /// The apps steps may name.
    public var apps: Set<String>

    public init(apps: some Sequence<String>) {
        self.apps = Set(apps)
    }

    /// The operator verbs and simulation facts, in the order messages list them.
    public static let verbs = [
        "open", "home", "overlay", "overlay-end", "lock", "unlock", "force-quit", "reset", "push",
        "accessory", "footprint", "pressure", "memory", "scan", "stall", "cpu",
    ]

    /// The app calls, written after the app's name.
    public static let appCalls = [
        "ready", "begin-task", "end-task", "begin-activity", "end-activity", "time-remaining", "complete-fetch",
        "complete-push", "complete-accessory",
        "set-fetch-interval", "register-push", "acquire", "release", "report-status", "crash", "exit",
    ]

    /// Parses one step. The error's sentence does not name the step; the caller adds that.
    public func parse(_ text: String, index: Int = 0, line: Int? = nil) throws(ScenarioStepError) -> ScenarioStep {
        let trimmed = Substring(text).trimmed()
        var words = Words(trimmed)
        guard let timeWord = words.next() else {
            throw ScenarioStepError("the step is empty; write it as \"TIME VERB ARGS\", such as \"10s open mail\".")
        }
        let time = try Self.parseTime(String(timeWord))
        guard let first = words.next() else {
            throw ScenarioStepError(
                "the step has a time but no verb; write it as \"TIME VERB ARGS\", such as \"\(timeWord) open mail\"."
            )
        }
        let verb = try parseVerb(String(first), words: &words)
        return ScenarioStep(time: time, verb: verb, index: index, line: line, text: String(trimmed))
    }

    /// Parses a step time such as `"10s"`, `"1.5m"`, `"250ms"` or `"15m5s"` (`DurationFormat.parse`).
    public static func parseTime(_ text: String) throws(ScenarioStepError) -> Instant {
        guard let duration = DurationFormat.parse(text), !text.hasPrefix("-") else {
            throw ScenarioStepError(
                "the time \"\(text)\" must be a duration: numbers followed by h, m, s or ms, such as \"10s\", \"1.5m\" or \"15m5s\"."
            )
        }
        guard duration >= .zero else {
            throw ScenarioStepError("the time \"\(text)\" must not be negative.")
        }
        return Instant(sinceOrigin: duration)
    }

    private func parseVerb(_ word: String, words: inout Words) throws(ScenarioStepError) -> ScenarioVerb {
        switch word {
        case "open": return .event(.open(app: try app(for: word, from: &words, rest: true)))
        case "home":
            try noMore(word, &words)
            return .event(.home)
        case "overlay":
            try noMore(word, &words)
            return .event(.overlay)
        case "overlay-end":
            try noMore(word, &words)
            return .event(.overlayEnd)
        case "lock":
            try noMore(word, &words)
            return .event(.lock)
        case "unlock":
            try noMore(word, &words)
            return .event(.unlock)
        case "force-quit": return .event(.forceQuit(app: try app(for: word, from: &words, rest: true)))
        case "reset": return .event(.reset(app: try app(for: word, from: &words, rest: true)))
        case "push": return try parsePush(&words)
        case "accessory": return try parseAccessory(&words)
        case "footprint":
            let app = try app(for: word, from: &words, rest: false, example: "footprint mail 300MiB")
            guard let sizeWord = words.next() else {
                throw ScenarioStepError("\"footprint\" needs a size after the app, as in \"footprint \(app) 300MiB\".")
            }
            guard let bytes = DurationFormat.parseSize(String(sizeWord)), !sizeWord.hasPrefix("-") else {
                throw ScenarioStepError(
                    "the size \"\(sizeWord)\" must be a number followed by B, KiB, MiB, GiB or TiB, such as \"300MiB\"."
                )
            }
            var swapped: Int64?
            if let next = words.next() {
                guard next == "swapped", let swappedWord = words.next(),
                    let measured = DurationFormat.parseSize(String(swappedWord)), !swappedWord.hasPrefix("-")
                else {
                    throw ScenarioStepError(
                        "\"footprint\" takes the app, its size and, optionally, \"swapped\" and the size of its part in swap, as in \"footprint \(app) 300MiB swapped 120MiB\"."
                    )
                }
                guard measured <= bytes else {
                    throw ScenarioStepError(
                        "the swapped part \"\(swappedWord)\" of \(app) cannot be more than its footprint \"\(sizeWord)\"."
                    )
                }
                swapped = measured
            }
            var inRAM: Int64?
            if let swapped, let next = words.next() {
                inRAM = try parseSwappedInRAM(next, swapped: swapped, app: app, &words)
            }
            try noMore(word, &words)
            return .event(.footprint(app: app, bytes: bytes, swapped: swapped, swappedInRAM: inRAM))
        case "pressure":
            let level = try choice(
                of: word, from: &words, as: "level", PressureLevel.allCases.map(\.rawValue), example: "critical")
            return .event(.pressure(PressureLevel(rawValue: level)!))
        case "memory":
            return .event(try parseMemorySample(&words))
        case "stall":
            guard let text = words.next(), text.hasSuffix("%"), let percent = Double(text.dropLast()), percent >= 0,
                percent <= 100
            else {
                throw ScenarioStepError("\"stall\" needs a percentage from 0% to 100%, as in \"stall 45%\".")
            }
            try noMore(word, &words)
            return .stall(percent: percent)
        case "cpu":
            let app = try app(for: word, from: &words, rest: false, example: "cpu mail 90%")
            guard let text = words.next(), text.hasSuffix("%"), let percent = Int(text.dropLast()), percent >= 0,
                percent <= 100_000
            else {
                throw ScenarioStepError(
                    "\"cpu\" needs the app and the share of one CPU it uses, a whole percentage such as \"cpu \(app) 90%\" (200% is two cores)."
                )
            }
            try noMore(word, &words)
            return .cpu(app: app, percent: percent)
        case "scan":
            let app = try app(for: word, from: &words, rest: false, example: "scan mail background")
            let outcome = try choice(
                of: word, from: &words, as: "outcome", ScanOutcome.allCases.map(\.rawValue), example: "background")
            return .scan(app: app, outcome: ScanOutcome(rawValue: outcome)!)
        default:
            break
        }
        let call = words.next().map(String.init)
        if let call, Self.appCalls.contains(call) {
            guard apps.contains(word) else { throw unknownApp(word) }
            return try parseAppCall(app: word, call: call, words: &words)
        }
        if apps.contains(word) {
            let written = call.map { "\"\($0)\"" } ?? "nothing"
            throw ScenarioStepError(
                "the app \"\(word)\" is followed by \(written), which is not an app call\(Self.suggestion(for: call ?? "", among: Self.appCalls)); "
                    + "app calls are \(Self.appCalls.joined(separator: ", "))."
            )
        }
        throw ScenarioStepError(
            "unknown verb \"\(word)\"\(Self.suggestion(for: word, among: Self.verbs)); expected one of "
                + "\(Self.verbs.joined(separator: ", ")), or an app's name followed by an app call."
        )
    }

    private func parseAppCall(app: String, call: String, words: inout Words) throws(ScenarioStepError)
        -> ScenarioVerb
    {
        switch call {
        case "ready":
            try noMore(call, &words)
            return .event(.ready(app: app))
        case "time-remaining":
            try noMore(call, &words)
            return .event(.timeRemaining(app: app))
        case "register-push":
            try noMore(call, &words)
            return .event(.registerPush(app: app))
        case "complete-accessory":
            try noMore(call, &words)
            return .event(.completeAccessory(app: app))
        case "crash":
            try noMore(call, &words)
            return .crash(app: app)
        case "exit":
            try noMore(call, &words)
            return .exit(app: app)
        case "begin-task":
            let name = words.rest()
            guard !name.isEmpty else {
                throw ScenarioStepError("\"begin-task\" needs a task name, as in \"\(app) begin-task sync\".")
            }
            return .event(.beginTask(app: app, name: String(name)))
        case "end-task":
            let reference = words.rest()
            guard !reference.isEmpty else {
                throw ScenarioStepError(
                    "\"end-task\" needs a task id or the name given to begin-task, as in \"\(app) end-task 1\".")
            }
            if let id = Int(reference) {
                guard id > 0 else {
                    throw ScenarioStepError("the task id \(id) must be a positive number; ids count 1, 2, 3… per app.")
                }
                return .endTask(app: app, task: .id(id))
            }
            return .endTask(app: app, task: .name(String(reference)))
        case "begin-activity":
            guard let mode = words.next() else {
                throw ScenarioStepError(
                    "\"begin-activity\" needs a continuous background mode (audio, location or long-work), as in \"\(app) begin-activity audio\"."
                )
            }
            try noMore(call, &words)
            return .event(.beginActivity(app: app, mode: String(mode)))
        case "end-activity":
            guard let word = words.next() else {
                throw ScenarioStepError("\"end-activity\" needs an activity id, as in \"\(app) end-activity 1\".")
            }
            try noMore(call, &words)
            guard let id = Int(word), id > 0 else {
                throw ScenarioStepError(
                    "the activity id \"\(word)\" must be a positive number; ids count 1, 2, 3… per app.")
            }
            return .event(.endActivity(app: app, activityID: id))
        case "complete-fetch", "complete-push":
            let result = try choice(
                of: call, from: &words, as: "result", CompletionResult.allCases.map(\.rawValue), example: "newData")
            let completion = CompletionResult(rawValue: result)!
            return call == "complete-fetch"
                ? .event(.completeFetch(app: app, result: completion))
                : .event(.completePush(app: app, result: completion))
        case "set-fetch-interval":
            guard let word = words.next() else {
                throw ScenarioStepError(
                    "\"set-fetch-interval\" needs minimum, never or a duration, as in \"\(app) set-fetch-interval 30m\"."
                )
            }
            try noMore(call, &words)
            guard let interval = FetchInterval(parsing: String(word)) else {
                throw ScenarioStepError(
                    "the fetch interval \"\(word)\" must be minimum, never or a positive duration such as \"30m\".")
            }
            return .event(.setFetchInterval(app: app, interval: interval))
        case "acquire", "release":
            guard let resource = words.next() else {
                throw ScenarioStepError("\"\(call)\" needs a resource name, as in \"\(app) \(call) camera\".")
            }
            try noMore(call, &words)
            return call == "acquire"
                ? .event(.acquire(app: app, resource: String(resource)))
                : .event(.release(app: app, resource: String(resource)))
        default:  // "report-status"
            let status = try choice(
                of: call, from: &words, as: "status", ["foreground", "background"], example: "background")
            return .event(.reportStatus(app: app, status: AppStatus(name: status)!))
        }
    }

    /// `memory AVAILABLE of TOTAL [swap FREE of TOTAL swappable SIZE [zram RATIO] [stall PERCENT%]]`:
    /// one memory sample, as the daemon measured it.
    /// What a footprint step's swapped part takes of RAM: `ratio R` (R ≥ 1: 1/R of it, as in a
    /// zram) or `in-ram SIZE` (the figure itself, at most the swapped part; 0 for swap on a drive).
    private func parseSwappedInRAM(
        _ word: Substring, swapped: Int64, app: String, _ words: inout Words
    ) throws(ScenarioStepError) -> Int64 {
        let value = words.next()
        switch word {
        case "ratio":
            guard let value, let ratio = Double(value), ratio >= 1, ratio.isFinite else {
                throw ScenarioStepError(
                    "\"ratio\" needs the compression of the swapped part, a number of at least 1, as in \"footprint \(app) 200MiB swapped 200MiB ratio 3\"."
                )
            }
            return Int64(Double(swapped) / ratio)
        case "in-ram":
            guard let value, let bytes = DurationFormat.parseSize(String(value)), !value.hasPrefix("-"),
                bytes <= swapped
            else {
                throw ScenarioStepError(
                    "\"in-ram\" needs the RAM the swapped part takes, a size of at most that part, as in \"footprint \(app) 200MiB swapped 200MiB in-ram 70MiB\"."
                )
            }
            return bytes
        default:
            throw ScenarioStepError(
                "\"footprint\" does not take \"\(word)\"; after the swapped part come only \"ratio R\" or \"in-ram SIZE\"."
            )
        }
    }

    private func parseMemorySample(_ words: inout Words) throws(ScenarioStepError) -> LifecycleEvent {
        let example = "\"memory 28MiB of 600MiB\""
        func size(_ word: Substring?, _ what: String) throws(ScenarioStepError) -> Int64 {
            guard let word else {
                throw ScenarioStepError("\"memory\" needs \(what), as in \(example).")
            }
            guard let bytes = DurationFormat.parseSize(String(word)), !word.hasPrefix("-") else {
                throw ScenarioStepError(
                    "the size \"\(word)\" must be a number followed by B, KiB, MiB, GiB or TiB, such as \"300MiB\".")
            }
            return bytes
        }
        func keyword(_ word: String) throws(ScenarioStepError) {
            let next = words.next()
            guard next.map(String.init) == word else {
                let written = next.map { "\"\($0)\"" } ?? "nothing"
                throw ScenarioStepError("\"memory\" expects \"\(word)\" where it found \(written), as in \(example).")
            }
        }
        let available = try size(words.next(), "the available memory")
        try keyword("of")
        let total = try size(words.next(), "the device memory after \"of\"")
        guard total > 0, available <= total else {
            throw ScenarioStepError("the available memory must be at most the device memory, which must not be zero.")
        }
        guard let next = words.next() else { return .memorySample(available: available, total: total) }
        guard next == "swap" else {
            throw ScenarioStepError(
                "\"memory\" does not take \"\(next)\"; after the device memory comes only \"swap FREE of TOTAL swappable SIZE\"."
            )
        }
        let free = try size(words.next(), "the free swap after \"swap\"")
        try keyword("of")
        let swapTotal = try size(words.next(), "the swap size")
        try keyword("swappable")
        let swappable = try size(words.next(), "what could go to swap after \"swappable\"")
        var swap = SwapFigures(free: free, total: swapTotal, swappable: swappable)
        while let word = words.next() {
            let value = words.next()
            switch word {
            case "zram":
                guard let value, let ratio = Double(value), ratio >= 1 else {
                    throw ScenarioStepError("\"zram\" needs a compression ratio of at least 1, such as \"zram 2.5\".")
                }
                swap.compressionRatio = ratio
            case "stall":
                guard let value, value.hasSuffix("%"), let percent = Double(value.dropLast()), percent >= 0,
                    percent <= 100
                else {
                    throw ScenarioStepError("\"stall\" needs a percentage from 0% to 100%, as in \"stall 45%\".")
                }
                swap.stallPercent = percent
            default:
                throw ScenarioStepError(
                    "\"memory\" does not take \"\(word)\"; after the swap come only zram and stall.")
            }
        }
        return .memorySample(available: available, total: total, swap: swap)
    }

    private func parsePush(_ words: inout Words) throws(ScenarioStepError) -> ScenarioVerb {
        guard let target = words.next() else {
            throw ScenarioStepError(
                "\"push\" needs an app (or a device token) and a JSON payload, as in "
                    + "\"push chat {\"aps\": {\"content-available\": 1}}\".")
        }
        let payload = words.rest()
        guard !payload.isEmpty else {
            throw ScenarioStepError(
                "\"push\" needs a JSON payload after \"\(target)\", as in \"push \(target) {\"aps\": {\"content-available\": 1}}\"."
            )
        }
        let name = String(target)
        // The notification id is the payload's own (`"id"`), as the control API takes it.
        let id = (try? PushPayload(parsing: String(payload)))?.id
        if apps.contains(name) { return .event(.push(target: .app(name), payload: String(payload), id: id)) }
        guard name.hasPrefix("tok-") else {
            var error = unknownApp(name)
            error.message += " A device token is written as the app's token, such as \"tok-mail-1\"."
            throw error
        }
        return .event(.push(target: .token(name), payload: String(payload), id: id))
    }

    private func parseAccessory(_ words: inout Words) throws(ScenarioStepError) -> ScenarioVerb {
        let example = #"accessory add {"SUBSYSTEM": "usb", "ID_VENDOR_ID": "1234", "ID_MODEL_ID": "5678"}"#
        guard let action = words.next() else {
            throw ScenarioStepError(
                "\"accessory\" needs an action (add, remove, change…) and the device's properties as JSON, as in \"\(example)\"."
            )
        }
        guard AccessoryAction(rawValue: String(action)) != nil else {
            throw ScenarioStepError(
                "the accessory action \"\(action)\" is not one udev sends; expected one of \(AccessoryAction.allCases.map(\.rawValue).joined(separator: ", "))."
            )
        }
        let json = words.rest()
        guard !json.isEmpty else {
            throw ScenarioStepError(
                "\"accessory\" needs the device's properties as JSON after \"\(action)\", as in \"\(example)\".")
        }
        do {
            let properties = try AccessoryMatch.parseProperties(String(json))
            return .event(.accessory(action: String(action), properties: properties))
        } catch {
            throw ScenarioStepError(error.message)
        }
    }

    private func app(for verb: String, from words: inout Words, rest: Bool, example: String? = nil)
        throws(ScenarioStepError) -> String
    {
        guard let word = words.next() else {
            throw ScenarioStepError("\"\(verb)\" needs an app's name, as in \"\(example ?? "\(verb) mail")\".")
        }
        if rest { try noMore(verb, &words) }
        let name = String(word)
        guard apps.contains(name) else { throw unknownApp(name) }
        return name
    }

    private func choice(
        of verb: String, from words: inout Words, as what: String, _ choices: [String], example: String
    ) throws(ScenarioStepError) -> String {
        let list = choices.joined(separator: ", ")
        guard let word = words.next() else {
            throw ScenarioStepError("\"\(verb)\" needs a \(what): one of \(list), such as \"\(example)\".")
        }
        try noMore(verb, &words)
        guard choices.contains(String(word)) else {
            throw ScenarioStepError(
                "the \(what) \"\(word)\" is not one of \(list)\(Self.suggestion(for: String(word), among: choices)).")
        }
        return String(word)
    }

    private func noMore(_ verb: String, _ words: inout Words) throws(ScenarioStepError) {
        let rest = words.rest()
        guard rest.isEmpty else {
            throw ScenarioStepError("\"\(verb)\" does not take \"\(rest)\"; remove it or split the step in two.")
        }
    }

    private func unknownApp(_ name: String) -> ScenarioStepError {
        let known = apps.sorted()
        let list = known.isEmpty ? "no apps" : known.joined(separator: ", ")
        return ScenarioStepError(
            "unknown app \"\(name)\"\(Self.suggestion(for: name, among: known)); the scenario knows \(list) "
                + "(from its policy and its [apps] tables).")
    }

    /// `" (did you mean "open"?)"` when a choice is close to the word, else empty.
    static func suggestion(for word: String, among choices: [String]) -> String {
        guard !word.isEmpty else { return "" }
        return KeySuggestion.closest(to: word, among: choices).map { " (did you mean \"\($0)\"?)" } ?? ""
    }
}

/// Why a step could not be parsed: a sentence that does not yet name the step.
public struct ScenarioStepError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Splits a step into whitespace-separated words, keeping the rest of the text available as written.
public struct Words {
    private var remaining: Substring

    public init(_ text: Substring) {
        remaining = text
    }

    /// The next word, or nil at the end.
    public mutating func next() -> Substring? {
        remaining = remaining.drop { $0.isWhitespace }
        guard !remaining.isEmpty else { return nil }
        let end = remaining.firstIndex { $0.isWhitespace } ?? remaining.endIndex
        let word = remaining[..<end]
        remaining = remaining[end...]
        return word
    }

    /// Everything not yet read, trimmed; the words are used up.
    public mutating func rest() -> Substring {
        let rest = remaining.trimmed()
        remaining = remaining[remaining.endIndex...]
        return rest
    }
}

extension Substring {
    /// The text without leading and trailing whitespace.
    func trimmed() -> Substring {
        guard let start = firstIndex(where: { !$0.isWhitespace }),
            let end = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[start...end]
    }
}
