import WardenCore

/// One record of an app's durable journal, as stored and as served by the control API.
///
/// Its `event` is typed (`AppEvent`); on the wire it is the fields `kind`, `name` and
/// `properties` (strings, camelCase keys), so that readers in any language need no schema
/// beyond `docs/openapi.yaml`, and entries written by an older daemon still read.
public struct JournalEntry: Codable, Sendable, Equatable {
    /// Increasing id, unique in the journal; `events --since ID` and the live stream resume from it.
    public var id: Int64
    /// The app the record belongs to (`appwarden` for records about no single app).
    public var app: String
    /// Wall-clock time, milliseconds since the Unix epoch.
    public var wallTimeMillis: Int64
    /// What happened.
    public var event: AppEvent

    /// The app name of records about no single app (pressure, the screen, the policy, the daemon).
    public static let systemApp = Lifecycle.systemJournalName

    public init(id: Int64, app: String, wallTimeMillis: Int64, event: AppEvent) {
        self.id = id
        self.app = app
        self.wallTimeMillis = wallTimeMillis
        self.event = event
    }

    /// An entry from its stored fields (`AppEvent.init(kind:name:properties:)`).
    public init(
        id: Int64, app: String, wallTimeMillis: Int64, kind: String, name: String, properties: [String: String] = [:]
    ) {
        self.init(
            id: id, app: app, wallTimeMillis: wallTimeMillis,
            event: AppEvent(kind: kind, name: name, properties: properties))
    }

    /// `analytics`, `state`, `decision`, `message`, `status` or `system` (or what an unknown
    /// record was stored with).
    public var kind: String { event.kindText }
    /// The event's name: `$AppStart`, `suspended`, `memoryWarning`, …
    public var name: String { event.name }
    /// Further properties (`reason`, `cold`, `from`, `to`, `durationMillis`, …) as strings.
    public var properties: [String: String] { event.properties }

    private enum CodingKeys: String, CodingKey {
        case id, app, wallTimeMillis, kind, name, properties
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int64.self, forKey: .id), app: try container.decode(String.self, forKey: .app),
            wallTimeMillis: try container.decode(Int64.self, forKey: .wallTimeMillis),
            kind: try container.decode(String.self, forKey: .kind),
            name: try container.decode(String.self, forKey: .name),
            properties: try container.decodeIfPresent([String: String].self, forKey: .properties) ?? [:])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let fields = event.fields
        try container.encode(id, forKey: .id)
        try container.encode(app, forKey: .app)
        try container.encode(wallTimeMillis, forKey: .wallTimeMillis)
        try container.encode(fields.kind, forKey: .kind)
        try container.encode(fields.name, forKey: .name)
        try container.encode(fields.properties, forKey: .properties)
    }
}

/// A query of the journal: `GET /v1/events?app=&kind=&since=&sinceTime=&limit=&newest=`.
public struct JournalQuery: Codable, Sendable, Equatable {
    public var app: String?
    /// Only records of this kind.
    public var kind: EventKind?
    /// Only records with an id greater than this.
    public var sinceID: Int64?
    /// Only records at or after this wall-clock time (ms since the epoch).
    public var sinceMillis: Int64?
    public var limit: Int
    /// With a limit, the newest records matching rather than the oldest (still oldest first).
    public var newest: Bool

    public init(
        app: String? = nil, kind: EventKind? = nil, sinceID: Int64? = nil, sinceMillis: Int64? = nil,
        limit: Int = 1000, newest: Bool = false
    ) {
        self.app = app
        self.kind = kind
        self.sinceID = sinceID
        self.sinceMillis = sinceMillis
        self.limit = limit
        self.newest = newest
    }

    /// The names of the query parameters.
    public enum Parameter: String, Sendable, CaseIterable {
        case app, kind, since, sinceTime, limit, newest
    }

    /// Whether `entry` passes the query's filters (app, kind, since, sinceTime); the limit aside.
    public func matches(_ entry: JournalEntry) -> Bool {
        (app == nil || entry.app == app) && (kind == nil || entry.kind == kind?.rawValue)
            && entry.id > (sinceID ?? 0) && entry.wallTimeMillis >= (sinceMillis ?? Int64.min)
    }

    /// The query as URL query parameters, as the server reads them.
    public var parameters: [(String, String)] {
        var result: [(String, String)] = []
        if let app { result.append((Parameter.app.rawValue, app)) }
        if let kind { result.append((Parameter.kind.rawValue, kind.rawValue)) }
        if let sinceID { result.append((Parameter.since.rawValue, String(sinceID))) }
        if let sinceMillis { result.append((Parameter.sinceTime.rawValue, String(sinceMillis))) }
        result.append((Parameter.limit.rawValue, String(limit)))
        if newest { result.append((Parameter.newest.rawValue, "true")) }
        return result
    }
}
