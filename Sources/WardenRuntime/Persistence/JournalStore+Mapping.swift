public import WardenAPI
public import WardenCore

extension JournalStore {
    /// What a journal entry says, before it has an id and a time: its kind, name and properties.
    public struct EntryContent: Sendable, Equatable {
        /// `analytics`, `state`, `decision`, `message` or `status`.
        public var kind: String
        public var name: String
        public var properties: [String: String]

        public init(kind: String, name: String, properties: [String: String] = [:]) {
            self.kind = kind
            self.name = name
            self.properties = properties
        }
    }

    /// The journal form of a core record.
    ///
    /// - analytics: kind `analytics`, name `$AppStart`/`$AppEnd`/`$AppStartPassively`/`$AppTerminated`,
    ///   properties `cold` and `after_passive` (`true`/`false`), `duration_ms`, or `reason`;
    /// - state change: kind `state`, name the new state, properties `from`, `to`, `because`;
    /// - decision: kind `decision`, name `decision`, property `text`.
    public static func content(of record: JournalRecord) -> EntryContent {
        switch record.kind {
        case .analytics(let event):
            let properties: [String: String] =
                switch event {
                case .appStart(let cold, let afterPassive):
                    ["cold": String(cold), "after_passive": String(afterPassive)]
                case .appEnd(let duration): ["duration_ms": String(duration.milliseconds)]
                case .appStartPassively(let reason): ["reason": reason.rawValue]
                case .appTerminated(let reason): ["reason": reason.rawValue]
                }
            return EntryContent(kind: "analytics", name: event.name, properties: properties)
        case .stateChange(let from, let to, let because):
            return EntryContent(
                kind: "state", name: to.rawValue,
                properties: ["from": from.rawValue, "to": to.rawValue, "because": because])
        case .decision(let text):
            return EntryContent(kind: "decision", name: "decision", properties: ["text": text])
        }
    }

    /// The journal form of a message to an app, kind `message`.
    ///
    /// Names and properties: `stateChanged` (`state`), `expirationWarning` (`task_ids` as
    /// comma-separated ids, `remaining_ms`), `fetchStart` (`window_ms`), `pushPayload` (`payload`,
    /// `id` when the push has one, `window_ms`), `memoryWarning`, `saveState`.
    public static func content(of message: AppMessage) -> EntryContent {
        switch message {
        case .stateChanged(let state):
            EntryContent(kind: "message", name: "stateChanged", properties: ["state": state.rawValue])
        case .expirationWarning(let taskIDs, let remaining):
            EntryContent(
                kind: "message", name: "expirationWarning",
                properties: [
                    "task_ids": taskIDs.map(String.init).joined(separator: ","),
                    "remaining_ms": String(remaining.milliseconds),
                ])
        case .fetchStart(let window):
            EntryContent(
                kind: "message", name: "fetchStart", properties: ["window_ms": String(window.milliseconds)])
        case .pushPayload(let payload, let id, let window):
            EntryContent(
                kind: "message", name: "pushPayload",
                properties: ["payload": payload, "window_ms": String(window.milliseconds)].merging(
                    id.map { ["id": $0] } ?? [:], uniquingKeysWith: { first, _ in first }))
        case .memoryWarning:
            EntryContent(kind: "message", name: "memoryWarning")
        case .saveState:
            EntryContent(kind: "message", name: "saveState")
        }
    }

    /// The journal form of a status publication: kind `status`, name the status.
    public static func content(of status: AppStatus) -> EntryContent {
        EntryContent(kind: "status", name: status.description)
    }

    /// A stored entry for a core record.
    public static func entry(_ record: JournalRecord, id: Int64, wallTimeMillis: Int64) -> JournalEntry {
        let content = content(of: record)
        return JournalEntry(
            id: id, app: record.app, wallTimeMillis: wallTimeMillis, kind: content.kind, name: content.name,
            properties: content.properties)
    }

    /// Appends a message to an app (as delivered on its event stream); id assigned.
    @discardableResult
    public func append(app: String, message: AppMessage, wallTimeMillis: Int64) throws -> JournalEntry {
        let content = Self.content(of: message)
        return try append(
            app: app, kind: content.kind, name: content.name, properties: content.properties,
            wallTimeMillis: wallTimeMillis)
    }

    /// Appends a status publication; id assigned.
    @discardableResult
    public func append(app: String, status: AppStatus, wallTimeMillis: Int64) throws -> JournalEntry {
        let content = Self.content(of: status)
        return try append(
            app: app, kind: content.kind, name: content.name, properties: content.properties,
            wallTimeMillis: wallTimeMillis)
    }
}
