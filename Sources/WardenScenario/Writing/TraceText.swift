public import WardenCore

/// Renders trace entries as readable lines: time, app, what happened and why.
///
/// ```
///     12s    mail        background → suspended  (grace ended)
/// ```
/// Timer arming and oom_score_adj changes are left out of the text (they are in the JSON).
public enum TraceText {
    /// Every entry that has a readable line, one per line.
    public static func render(_ entries: [TraceEntry], verbose: Bool = false) -> String {
        var lines: [String] = []
        lines.reserveCapacity(entries.count)
        for entry in entries {
            if let line = line(entry, verbose: verbose) { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    /// The readable line of one entry, nil for entries left out of the text. `verbose` keeps
    /// timer arming and oom_score_adj changes too.
    public static func line(_ entry: TraceEntry, verbose: Bool = false) -> String? {
        let time = pad(clock(entry.time), to: 9, left: true)
        switch entry.kind {
        case .step(let step):
            return "\(time)  ▸ \(stepText(step))"
        case .refused(let what, let error):
            return "\(time)  ✗ refused \"\(what)\": \(error.message) (\(error.code.rawValue))"
        case .check(let expectation, let actual):
            let found = actual?.rawValue ?? "unknown"
            return actual == expectation.state
                ? "\(time)  ✓ at \(expectation.text)"
                : "\(time)  ✗ at \(expectation.text): the state is \(found)"
        case .event(let event):
            guard let (app, text) = eventText(event) else { return nil }
            return "\(time)    \(pad(app, to: 10)) \(text)"
        case .action(let action):
            if !verbose, action.isHousekeeping { return nil }
            guard let (app, text) = actionText(action) else { return nil }
            return "\(time)    \(pad(app, to: 10)) \(text)"
        }
    }

    static func stepText(_ step: ScenarioStep) -> String {
        let words = Words(Substring(step.text))
        var copy = words
        _ = copy.next()
        let rest = copy.rest()
        return rest.isEmpty ? step.text : String(rest)
    }

    /// A short sentence naming an event, as a step would write it.
    public static func event(_ event: LifecycleEvent) -> String {
        guard let (app, text) = eventText(event) else { return "\(event)" }
        return app.isEmpty ? text : "\(app) \(text)"
    }

    /// The app an event is about (empty for none) and how the trace writes the rest of it; nil
    /// for an event with no readable line.
    public static func eventText(_ event: LifecycleEvent) -> (String, String)? {
        switch event {
        case .timerFired(let id): (id.app, "timer \(id.kind.rawValue) fired")
        case .ready(let app): (app, "ready")
        case .launched(let app, let launch): (app, "process running (launch \(launch))")
        case .processExited(let app, let launch, let end):
            switch end {
            case .exited(let code) where code > 128:
                (
                    app,
                    "process ended by \(code == 137 ? "SIGKILL" : code == 143 ? "SIGTERM" : "signal \(code - 128)") (launch \(launch))"
                )
            case .exited(let code): (app, "process exited (launch \(launch), status \(code))")
            case .crashed(let description): (app, "process crashed (launch \(launch): \(description))")
            case .oomKilled(let kill):
                (
                    app,
                    "process killed by the kernel's OOM killer (launch \(launch)\(kill.limit.map { ", at its limit of \(DurationFormat.sizeString($0))" } ?? ""))"
                )
            }
        case .compressed(let app, _, let bytes, _): (app, "compressed: \(DurationFormat.sizeString(bytes)) in swap")
        case .cpuMeasured(let app, _, let usage):
            (app, usage.map { "used \(DurationFormat.string($0)) of CPU in all" } ?? "CPU time not counted")
        case .stallMeasured(let app, _, let total):
            (app, total.map { "stalled \(DurationFormat.string($0)) in all" } ?? "stall not counted")
        case .oomKilled(let app, let launch, let kill):
            (
                app,
                "OOM kill in its group (launch \(launch)\(kill.limit.map { ", at its limit of \(DurationFormat.sizeString($0))" } ?? ""))"
            )
        case .spawnFailed(let app, let launch, let message): (app, "launch \(launch) failed: \(message)")
        case .completeFetch(let app, let result): (app, "complete-fetch \(result.rawValue)")
        case .completePush(let app, let result): (app, "complete-push \(result.rawValue)")
        case .completeAccessory(let app): (app, "complete-accessory")
        case .accessory(let action, let properties):
            ("", "accessory \(action) \(AccessoryMatch.propertiesText(properties))")
        case .endTask(let app, let id): (app, "end-task \(id)")
        case .scanResult(let app, let outcome): (app, "scan found \(outcome.rawValue)")
        case .memorySample(let available, let total, let swap):
            (
                "",
                "memory sample: \(DurationFormat.sizeString(available)) available of \(DurationFormat.sizeString(total))"
                    + (swap.map { ", swap could free \(DurationFormat.sizeString($0.headroom))" } ?? "")
            )
        case .footprint(let app, let bytes, let swapped, let inRAM):
            (
                app,
                "footprint \(DurationFormat.sizeString(bytes))"
                    + (swapped.map { ", \(DurationFormat.sizeString($0)) in swap" } ?? "")
                    + (inRAM.map { " taking \(DurationFormat.sizeString($0)) of RAM" } ?? "")
            )
        case .heldAtSuspension(let app, let resource): (app, "holds \(resource) at suspension")
        case .observedFrozen(let app, let frozen): (app, frozen ? "found frozen" : "found thawed")
        case .open(let app): ("", "open \(app)")
        case .home: ("", "home")
        case .overlay: ("", "overlay")
        case .overlayEnd: ("", "overlay-end")
        case .lock: ("", "lock")
        case .unlock: ("", "unlock")
        case .forceQuit(let app): ("", "force-quit \(app)")
        case .reset(let app): ("", "reset \(app)")
        case .push(let target, _, _):
            switch target {
            case .app(let app): ("", "push \(app)")
            case .token(let token): ("", "push \(token)")
            }
        case .beginTask(let app, let name): (app, "begin-task \(name)")
        case .beginActivity(let app, let mode): (app, "begin-activity \(mode)")
        case .endActivity(let app, let id): (app, "end-activity \(id)")
        case .timeRemaining(let app): (app, "time-remaining")
        case .setFetchInterval(let app, let interval): (app, "set-fetch-interval \(interval)")
        case .registerPush(let app): (app, "register-push")
        case .acquire(let app, let resource): (app, "acquire \(resource)")
        case .release(let app, let resource): (app, "release \(resource)")
        case .reportStatus(let app, let status): (app, "report-status \(status)")
        case .pressure(let level): ("", "pressure \(level.rawValue)")
        case .policyChanged: ("", "policy changed")
        }
    }

    /// The app an action is about (empty for none) and how the trace writes the rest of it; nil
    /// for an action with no readable line.
    public static func actionText(_ action: LifecycleAction) -> (String, String)? {
        switch action {
        case .spawn(let app, let launch, let reason, let restore):
            return (app, "spawn launch \(launch) (\(reason.rawValue)\(restore ? ", restoring its state" : ""))")
        case .freeze(let app, let guardPaths):
            let paths = guardPaths.map(\.path)
            return (app, paths.isEmpty ? "freeze" : "freeze (guarding \(paths.joined(separator: ", ")))")
        case .thaw(let app): return (app, "thaw")
        case .measureStall(let app, _): return (app, "measure its stall")
        case .measureCPU(let app, _): return (app, "measure its CPU time")
        case .compress(let app, _): return (app, "compress (push its memory to swap)")
        case .terminate(let app, let reason): return (app, "SIGTERM (\(reason.rawValue))")
        case .kill(let app, let reason): return (app, "SIGKILL (\(reason.rawValue))")
        case .deliver(let app, let message):
            switch message {
            case .stateChanged(let state): return (app, "← state \(state.rawValue)")
            case .expirationWarning(let taskIDs, let remaining):
                let ids = taskIDs.map(String.init).joined(separator: ", ")
                return (app, "← expiration call for task \(ids) (\(DurationFormat.string(remaining)) left)")
            case .fetchStart(let window): return (app, "← fetch start (window \(DurationFormat.string(window)))")
            case .pushPayload(_, let id, let window):
                let named = id.map { " \"\($0)\"" } ?? ""
                return (app, "← push\(named) (window \(DurationFormat.string(window)))")
            case .accessoryEvent(let action, _, let window):
                return (app, "← accessory \(action) (window \(DurationFormat.string(window)))")
            case .memoryWarning: return (app, "← memory warning")
            case .cpuWarning(let percent, let limit, let window):
                return (
                    app, "← CPU warning (\(percent)% of a CPU over \(DurationFormat.string(window)), limit \(limit)%)"
                )
            case .activitiesEnded(let ids, let after):
                let list = ids.map(String.init).joined(separator: ", ")
                return (app, "← activity \(list) ended (unattended for \(DurationFormat.string(after)))")
            case .saveState: return (app, "← save your state")
            }
        case .publishStatus(let app, let status): return (app, "status \(status)")
        case .scan(let app): return (app, "scan the processes")
        case .journal(let record):
            switch record.kind {
            case .stateChange(let from, let to, let because):
                return (record.app, "\(from.rawValue) → \(to.rawValue)  (\(because))")
            case .analytics(let event): return (record.app, analytics(event))
            case .decision(let text): return (record.app, "decided: \(text)")
            case .memoryKill(let report):
                let others = report.others.map { "\($0.app) (\($0.reason))" }
                let more = report.unlisted > 0 ? ", and \(report.unlisted) more" : ""
                return (
                    record.app, "passed over: " + (others.isEmpty ? "nobody" : others.joined(separator: ", ")) + more
                )
            case .system(let event): return (record.app, "device: \(event)")
            }
        case .deleteRestorationState(let app): return (app, "delete preserved state")
        case .runHook(let hook): return (hook.app ?? "", "run hook \(hook.kind.policyKey)")
        case .reply(let reply):
            switch reply {
            case .taskBegun(let id, let remaining):
                return ("", "→ task \(id)\(remaining.map { " (\(DurationFormat.string($0)) left)" } ?? "")")
            case .activityBegun(let id): return ("", "→ activity \(id)")
            case .timeRemaining(let remaining):
                return ("", "→ \(remaining.map { "\(DurationFormat.string($0)) left" } ?? "no limit")")
            case .deviceToken(let token): return ("", "→ token \(token)")
            case .push(let disposition): return ("", "→ push \(disposition.rawValue)")
            case .policyChanged(let diff): return ("", "→ " + diff.sentences.joined(separator: " "))
            }
        case .armTimer(let id, let deadline):
            return (id.app, "arm timer \(id.kind.rawValue) for \(deadline)")
        case .cancelTimer(let id):
            return (id.app, "cancel timer \(id.kind.rawValue)")
        case .setMemoryLimits(let app, let limits):
            let max = limits.max.map { "memory.max \(DurationFormat.sizeString($0))" } ?? "memory.max none"
            let high = limits.high.map { ", memory.high \(DurationFormat.sizeString($0))" } ?? ""
            return (app, "limits: \(max)\(high)")
        case .setOOMScore(let app, let band, let score):
            return (app, "oom_score_adj \(score) (\(band) band)")
        case .setCPU(let app, let cpuClass, let control):
            let idle = control.idle ? ", idle" : ""
            let cap = control.maxPercent.map { ", at most \($0)% of a CPU" } ?? ""
            let io = control.ioWeight.map { ", I/O weight \($0)" } ?? ""
            return (app, "CPU class \(cpuClass) (weight \(control.weight)\(idle)\(cap)\(io))")
        }
    }

    static func analytics(_ event: AnalyticsEvent) -> String {
        switch event {
        case .appStart(let cold, let afterPassive, let afterKill):
            "$AppStart (\(cold ? "cold" : "hot")\(afterPassive ? ", after a passive launch" : "")"
                + (afterKill.map { ", after a kill: \($0.rawValue)" } ?? "") + ")"
        case .appEnd(let duration): "$AppEnd (\(DurationFormat.string(duration)) in the foreground)"
        case .appStartPassively(let reason): "$AppStartPassively (\(reason.rawValue))"
        case .appTerminated(let reason): "$AppTerminated (\(reason.rawValue))"
        }
    }

    /// A refused step as `[expect] refused` writes it: the time, the step without its own time,
    /// and the error's code, such as `"30s open mail conflict"`.
    public static func refusalLine(_ step: String, at time: Instant, code: String) -> String {
        var words = step.split(whereSeparator: \.isWhitespace).map(String.init)
        if let first = words.first, (try? ScenarioStepParser.parseTime(first)) != nil {
            words.removeFirst()
        }
        return ([clock(time)] + words + [code]).joined(separator: " ")
    }

    /// A time on the virtual clock in its largest units: `"12s"`, `"2m30s"`, `"1h0m5s"`, `"1.25s"`
    /// (`DurationFormat.string`, which scenario steps and `at` times read back).
    public static func clock(_ instant: Instant) -> String {
        DurationFormat.string(instant.sinceOrigin)
    }

    static func pad(_ text: String, to width: Int, left: Bool = false) -> String {
        guard text.count < width else { return text }
        let spaces = String(repeating: " ", count: width - text.count)
        return left ? spaces + text : text + spaces
    }
}

extension LifecycleAction {
    /// Timer arming, oom_score_adj changes and state messages to the app: left out of the readable trace.
    var isHousekeeping: Bool {
        switch self {
        case .armTimer, .cancelTimer, .setOOMScore, .setCPU, .measureCPU, .deliver(_, .stateChanged): true
        case .journal(let record):
            switch record.kind {
            case .memoryKill, .system: true
            case .analytics, .stateChange, .decision: false
            }
        default: false
        }
    }
}
