import WardenCore
import WardenScenario

extension SimulationResult {
    /// The run for machines: the verdict, each check, the record and the trace.
    ///
    /// Times are in milliseconds of virtual time (`timeMillis`); each trace entry has a `type`
    /// (`step`, `event`, `action`, `refused`, `check`), the `app` it concerns when there is one,
    /// and its readable `text`.
    public var json: JSONValue {
        .object([
            ("scenario", .string(scenario.name)),
            ("file", scenario.file.map(JSONValue.string) ?? .null),
            ("passed", .bool(passed)),
            ("endMillis", .number(endTime.sinceOrigin.milliseconds)),
            ("events", .number(Int64(eventCount))),
            (
                "checks",
                .array(
                    checks.map { check in
                        .object([
                            ("key", .string(check.key)),
                            ("holds", .bool(check.holds)),
                            ("expected", .array(check.expected.map(JSONValue.string))),
                            ("actual", .array(check.actual.map(JSONValue.string))),
                            ("firstDifference", check.firstDifference.map { .number(Int64($0)) } ?? .null),
                        ])
                    })
            ),
            ("killOrder", .array(record.killOrder.map(JSONValue.string))),
            ("terminations", .array(record.terminationLines.map(JSONValue.string))),
            ("analytics", .array(record.analyticsLines.map(JSONValue.string))),
            ("status", .array(record.statusLines.map(JSONValue.string))),
            ("launches", .array(record.launchLines.map(JSONValue.string))),
            (
                "refusals",
                .array(
                    record.refusals.map { refusal in
                        .object([
                            ("timeMillis", .number(refusal.time.sinceOrigin.milliseconds)),
                            ("what", .string(refusal.what)),
                            ("code", .string(refusal.error.code.rawValue)),
                            ("message", .string(refusal.error.message)),
                        ])
                    })
            ),
            ("trace", .array(trace.map(Self.json(for:)))),
        ])
    }

    static func json(for entry: TraceEntry) -> JSONValue {
        let type: String
        var app: String?
        switch entry.kind {
        case .step(let step):
            type = "step"
            app = step.verb.app
        case .event(let event):
            type = "event"
            app = TraceText.eventText(event).map(\.0)
        case .action(let action):
            type = "action"
            app = TraceText.actionText(action).map(\.0) ?? action.app
        case .refused:
            type = "refused"
        case .check(let expectation, _):
            type = "check"
            app = expectation.app
        }
        let text = TraceText.line(entry, verbose: true).map(Self.untimed) ?? ""
        return .object([
            ("timeMillis", .number(entry.time.sinceOrigin.milliseconds)),
            ("type", .string(type)),
            ("app", app.flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null),
            ("text", .string(text)),
        ])
    }

    /// The readable line without its leading time column.
    static func untimed(_ line: String) -> String {
        var words = Words(Substring(line))
        _ = words.next()
        return String(words.rest())
    }
}

extension LifecycleAction {
    /// The app the action concerns, when there is one.
    var app: String? {
        switch self {
        case .spawn(let app, _, _, _), .freeze(let app, _), .thaw(let app), .compress(let app, _),
            .measureStall(let app, _),
            .terminate(let app, _),
            .kill(let app, _), .setOOMScore(let app, _, _), .setMemoryLimits(let app, _), .deliver(let app, _),
            .setCPU(let app, _, _), .measureCPU(let app, _),
            .publishStatus(let app, _),
            .scan(let app), .deleteRestorationState(let app):
            app
        case .armTimer(let id, _), .cancelTimer(let id):
            id.app
        case .journal(let record):
            record.app
        case .runHook(let hook):
            hook.app
        case .reply:
            nil
        }
    }
}
