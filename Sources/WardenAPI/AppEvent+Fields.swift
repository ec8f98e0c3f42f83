import FoundationEssentials
public import WardenCore

/// The wire and journal form of an event: kind, name and string properties. The one place
/// where the names and property keys of events are spelled.
extension AppEvent {
    /// The event as the journal stores it and the API sends it.
    public struct Fields: Sendable, Equatable {
        public var kind: String
        public var name: String
        public var properties: [String: String]

        public init(kind: String, name: String, properties: [String: String] = [:]) {
            self.kind = kind
            self.name = name
            self.properties = properties
        }
    }

    /// The name of the memory killer's record.
    static let memoryKillName = "memoryKill"
    /// The name of plain decisions.
    static let decisionName = "decision"

    /// The event from a core journal record.
    public init(_ record: JournalRecord.Kind) {
        switch record {
        case .analytics(let event): self = .analytics(event)
        case .stateChange(let from, let to, let because): self = .stateChange(from: from, to: to, because: because)
        case .decision(let text): self = .decision(text)
        case .memoryKill(let report): self = .memoryKill(report)
        case .system(let event): self = .system(event)
        }
    }

    /// The kind, name and properties of the event.
    public var fields: Fields {
        switch self {
        case .analytics(let event):
            let properties: [String: String] =
                switch event {
                case .appStart(let cold, let afterPassive, let afterKill):
                    ["cold": String(cold), "afterPassive": String(afterPassive)]
                        .merging(afterKill.map { ["afterKill": $0.rawValue] } ?? [:], uniquingKeysWith: { $1 })
                case .appEnd(let duration): ["durationMillis": String(duration.milliseconds)]
                case .appStartPassively(let reason): ["reason": reason.rawValue]
                case .appTerminated(let reason): ["reason": reason.rawValue]
                }
            return Fields(kind: EventKind.analytics.rawValue, name: event.name, properties: properties)
        case .stateChange(let from, let to, let because):
            return Fields(
                kind: EventKind.state.rawValue, name: to.rawValue,
                properties: ["from": from.rawValue, "to": to.rawValue, "because": because])
        case .decision(let text):
            return Fields(kind: EventKind.decision.rawValue, name: Self.decisionName, properties: ["text": text])
        case .memoryKill(let report):
            return Fields(kind: EventKind.decision.rawValue, name: Self.memoryKillName, properties: report.properties)
        case .message(let message):
            return Fields(kind: EventKind.message.rawValue, name: message.name, properties: message.properties)
        case .status(let status):
            return Fields(kind: EventKind.status.rawValue, name: status.description)
        case .system(let event):
            return Fields(kind: EventKind.system.rawValue, name: event.name, properties: event.properties)
        case .input(let input):
            return Fields(kind: EventKind.input.rawValue, name: input.name, properties: input.properties)
        case .unknown(let kind, let name, let properties):
            return Fields(kind: kind, name: name, properties: properties)
        }
    }

    /// Reads an event back from its fields; what is not understood becomes `.unknown`.
    public init(kind: String, name: String, properties: [String: String] = [:]) {
        let reader = PropertyReader(properties)
        let decoded: AppEvent? =
            switch EventKind(rawValue: kind) {
            case .analytics: AnalyticsEvent(name: name, reader).map(AppEvent.analytics)
            case .state:
                reader.value(AppState.self, "from").flatMap { from in
                    reader.value(AppState.self, "to").map { to in
                        .stateChange(from: from, to: to, because: reader.text("because") ?? "no reason recorded")
                    }
                }
            case .decision:
                name == Self.memoryKillName
                    ? MemoryKillReport(reader).map(AppEvent.memoryKill)
                    : reader.text("text").map(AppEvent.decision)
            case .message: AppMessage(name: name, reader).map(AppEvent.message)
            case .status: AppStatus(name: name).map(AppEvent.status)
            case .system: SystemEvent(name: name, reader).map(AppEvent.system)
            case .input: JournalInput(name: name, properties: properties).map(AppEvent.input)
            case nil: nil
            }
        self = decoded ?? .unknown(kind: kind, name: name, properties: properties)
    }
}

/// Reads typed values from string properties, by their camelCase key or the snake_case key
/// an older daemon wrote.
struct PropertyReader {
    let properties: [String: String]

    init(_ properties: [String: String]) {
        self.properties = properties
    }

    func text(_ key: String, legacy: String? = nil) -> String? {
        properties[key] ?? legacy.flatMap { properties[$0] }
    }

    func integer(_ key: String, legacy: String? = nil) -> Int64? {
        text(key, legacy: legacy).flatMap { Int64($0) }
    }

    func number(_ key: String) -> Double? {
        text(key).flatMap { Double($0) }
    }

    func bool(_ key: String, legacy: String? = nil) -> Bool? {
        text(key, legacy: legacy).flatMap { Bool($0) }
    }

    func value<Value: RawRepresentable<String>>(_ type: Value.Type, _ key: String) -> Value? {
        text(key).flatMap(Value.init(rawValue:))
    }

    func list(_ key: String) -> [String]? {
        text(key).map { $0.isEmpty ? [] : $0.split(separator: ",").map(String.init) }
    }
}

extension AnalyticsEvent {
    init?(name: String, _ reader: PropertyReader) {
        switch name {
        case "$AppStart":
            guard let cold = reader.bool("cold") else { return nil }
            self = .appStart(
                cold: cold, afterPassive: reader.bool("afterPassive", legacy: "after_passive") ?? false,
                afterKill: reader.value(TerminationReason.self, "afterKill"))
        case "$AppEnd":
            guard let millis = reader.integer("durationMillis", legacy: "duration_ms") else { return nil }
            self = .appEnd(foregroundDuration: .milliseconds(millis))
        case "$AppStartPassively":
            guard let reason = reader.value(LaunchReason.self, "reason") else { return nil }
            self = .appStartPassively(reason: reason)
        case "$AppTerminated":
            guard let reason = reader.value(TerminationReason.self, "reason") else { return nil }
            self = .appTerminated(reason: reason)
        default:
            return nil
        }
    }
}

extension AppMessage {
    /// The message's name on the app's event stream.
    public var name: String {
        switch self {
        case .stateChanged: "stateChanged"
        case .expirationWarning: "expirationWarning"
        case .fetchStart: "fetchStart"
        case .pushPayload: "pushPayload"
        case .accessoryEvent: "accessoryEvent"
        case .memoryWarning: "memoryWarning"
        case .cpuWarning: "cpuWarning"
        case .activitiesEnded: "activitiesEnded"
        case .saveState: "saveState"
        }
    }

    var properties: [String: String] {
        switch self {
        case .stateChanged(let state): ["state": state.rawValue]
        case .expirationWarning(let taskIDs, let remaining):
            [
                "taskIDs": taskIDs.map(String.init).joined(separator: ","),
                "remainingMillis": String(remaining.milliseconds),
            ]
        case .fetchStart(let window): ["windowMillis": String(window.milliseconds)]
        case .pushPayload(let payload, let id, let window):
            ["payload": payload, "windowMillis": String(window.milliseconds)].merging(
                id.map { ["id": $0] } ?? [:], uniquingKeysWith: { first, _ in first })
        case .accessoryEvent(let action, let properties, let window):
            [
                "action": action, "properties": AccessoryMatch.propertiesText(properties),
                "windowMillis": String(window.milliseconds),
            ]
        case .cpuWarning(let percent, let limitPercent, let window):
            [
                "percent": String(percent), "limitPercent": String(limitPercent),
                "windowMillis": String(window.milliseconds),
            ]
        case .activitiesEnded(let ids, let after):
            ["activityIDs": ids.map(String.init).joined(separator: ","), "afterMillis": String(after.milliseconds)]
        case .memoryWarning, .saveState: [:]
        }
    }

    init?(name: String, _ reader: PropertyReader) {
        switch name {
        case "stateChanged":
            guard let state = reader.value(AppState.self, "state") else { return nil }
            self = .stateChanged(state)
        case "expirationWarning":
            let ids = (reader.text("taskIDs", legacy: "task_ids") ?? "").split(separator: ",").compactMap { Int($0) }
            let remaining = reader.integer("remainingMillis", legacy: "remaining_ms") ?? 0
            self = .expirationWarning(taskIDs: ids, remaining: .milliseconds(remaining))
        case "fetchStart":
            self = .fetchStart(window: .milliseconds(reader.integer("windowMillis", legacy: "window_ms") ?? 0))
        case "pushPayload":
            self = .pushPayload(
                payload: reader.text("payload") ?? "{}", id: reader.text("id"),
                window: .milliseconds(reader.integer("windowMillis", legacy: "window_ms") ?? 0))
        case "accessoryEvent":
            self = .accessoryEvent(
                action: reader.text("action") ?? "change",
                properties: AccessoryMatch.properties(parsing: reader.text("properties") ?? "{}") ?? [:],
                window: .milliseconds(reader.integer("windowMillis") ?? 0))
        case "memoryWarning": self = .memoryWarning
        case "cpuWarning":
            self = .cpuWarning(
                percent: Int(reader.integer("percent") ?? 0), limitPercent: Int(reader.integer("limitPercent") ?? 0),
                window: .milliseconds(reader.integer("windowMillis") ?? 0))
        case "activitiesEnded":
            let ids = (reader.text("activityIDs") ?? "").split(separator: ",").compactMap { Int($0) }
            self = .activitiesEnded(activityIDs: ids, after: .milliseconds(reader.integer("afterMillis") ?? 0))
        case "saveState": self = .saveState
        default: return nil
        }
    }
}

extension MemoryFigures {
    var properties: [String: String] {
        var properties = [
            "availableBytes": String(availableBytes), "totalBytes": String(totalBytes),
            "warningEnterBytes": String(warningEnterBytes), "criticalEnterBytes": String(criticalEnterBytes),
        ]
        if let warningExitBytes { properties["warningExitBytes"] = String(warningExitBytes) }
        if let criticalExitBytes { properties["criticalExitBytes"] = String(criticalExitBytes) }
        if let swapHeadroomBytes { properties["swapHeadroomBytes"] = String(swapHeadroomBytes) }
        if let stallPercent { properties["stallPercent"] = String(stallPercent) }
        return properties
    }

    /// Reads the figures; those of earlier daemons (`warningBytes`, `criticalBytes`: one threshold
    /// per level, the one in force) are read as enter thresholds without exit thresholds.
    init?(_ reader: PropertyReader) {
        guard let available = reader.integer("availableBytes"), let total = reader.integer("totalBytes"),
            let warning = reader.integer("warningEnterBytes", legacy: "warningBytes"),
            let critical = reader.integer("criticalEnterBytes", legacy: "criticalBytes")
        else { return nil }
        self.init(
            availableBytes: available, totalBytes: total, warningEnterBytes: warning,
            warningExitBytes: reader.integer("warningExitBytes"), criticalEnterBytes: critical,
            criticalExitBytes: reader.integer("criticalExitBytes"),
            swapHeadroomBytes: reader.integer("swapHeadroomBytes"),
            stallPercent: reader.number("stallPercent"))
    }
}

extension KillBand {
    init?(name: String) {
        guard let band = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = band
    }
}

extension MemoryKillReport {
    /// A candidate passed over, as JSON inside the `candidates` property.
    private struct CandidateFields: Codable {
        var app: String
        var band: String
        var footprintBytes: Int64
        var reclaimableBytes: Int64?
        var reason: String
    }

    var properties: [String: String] {
        let candidates = others.map {
            CandidateFields(
                app: $0.app, band: $0.band.description, footprintBytes: $0.footprint,
                reclaimableBytes: $0.reclaimable == $0.footprint ? nil : $0.reclaimable, reason: $0.reason)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let list = (try? encoder.encode(candidates)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        return (figures?.properties ?? [:]).merging(
            [
                "level": level.rawValue, "band": band.description, "footprintBytes": String(footprint),
                "reclaimableBytes": String(reclaimable), "candidates": list,
            ]
            .merging(unlisted > 0 ? ["unlistedCandidates": String(unlisted)] : [:], uniquingKeysWith: { $1 })
            .merging(swapped > 0 ? ["swappedBytes": String(swapped)] : [:], uniquingKeysWith: { $1 })
            .merging(
                tookRoom.map {
                    ["roomGrowthBytes": String($0.growth), "roomBytes": String($0.room), "roomMadeBy": $0.madeBy]
                } ?? [:], uniquingKeysWith: { $1 }),
            uniquingKeysWith: { first, _ in first })
    }

    /// How the victim took the room the last kill made, when its report says so.
    private static func tookRoom(_ reader: PropertyReader) -> TookRoom? {
        guard let growth = reader.integer("roomGrowthBytes"), let room = reader.integer("roomBytes"),
            let madeBy = reader.text("roomMadeBy")
        else { return nil }
        return TookRoom(growth: growth, room: room, madeBy: madeBy)
    }

    init?(_ reader: PropertyReader) {
        guard let level = reader.value(PressureLevel.self, "level"),
            let band = reader.text("band").flatMap(KillBand.init(name:)),
            let footprint = reader.integer("footprintBytes"),
            let candidates = try? JSONDecoder().decode(
                [CandidateFields].self, from: Data((reader.text("candidates") ?? "[]").utf8))
        else { return nil }
        let others = candidates.compactMap { candidate in
            KillBand(name: candidate.band).map {
                PassedOver(
                    app: candidate.app, band: $0, footprint: candidate.footprintBytes,
                    reclaimable: candidate.reclaimableBytes, reason: candidate.reason)
            }
        }
        self.init(
            level: level, figures: MemoryFigures(reader), band: band, footprint: footprint,
            swapped: reader.integer("swappedBytes") ?? 0, reclaimable: reader.integer("reclaimableBytes"),
            tookRoom: Self.tookRoom(reader), others: others,
            unlisted: Int(reader.integer("unlistedCandidates") ?? 0))
    }
}

extension SystemEvent {
    /// The event's name in the journal.
    public var name: String {
        switch self {
        case .pressureChanged: "pressureChanged"
        case .screenLocked: "screenLocked"
        case .screenUnlocked: "screenUnlocked"
        case .policyReloaded: "policyReloaded"
        case .daemonStarted: "daemonStarted"
        case .daemonStopped: "daemonStopped"
        }
    }

    var properties: [String: String] {
        switch self {
        case .pressureChanged(let from, let to, let figures):
            (figures?.properties ?? [:]).merging(["from": from.rawValue, "to": to.rawValue]) { first, _ in first }
        case .screenLocked, .screenUnlocked: [:]
        case .policyReloaded(let added, let removed, let changed):
            Self.lists(["added": added, "removed": removed, "changed": changed])
        case .daemonStarted(let version, let readopted):
            Self.lists(["readopted": readopted]).merging(["version": version]) { first, _ in first }
        case .daemonStopped(let leftRunning): Self.lists(["leftRunning": leftRunning])
        }
    }

    /// Lists of app names as comma-separated properties; an empty list is left out (it reads back as empty).
    private static func lists(_ lists: [String: [String]]) -> [String: String] {
        lists.filter { !$0.value.isEmpty }.mapValues { $0.joined(separator: ",") }
    }

    init?(name: String, _ reader: PropertyReader) {
        switch name {
        case "pressureChanged":
            guard let from = reader.value(PressureLevel.self, "from"), let to = reader.value(PressureLevel.self, "to")
            else { return nil }
            self = .pressureChanged(from: from, to: to, figures: MemoryFigures(reader))
        case "screenLocked": self = .screenLocked
        case "screenUnlocked": self = .screenUnlocked
        case "policyReloaded":
            self = .policyReloaded(
                added: reader.list("added") ?? [], removed: reader.list("removed") ?? [],
                changed: reader.list("changed") ?? [])
        case "daemonStarted":
            self = .daemonStarted(version: reader.text("version") ?? "", readopted: reader.list("readopted") ?? [])
        case "daemonStopped":
            self = .daemonStopped(leftRunning: reader.list("leftRunning") ?? [])
        default: return nil
        }
    }
}
