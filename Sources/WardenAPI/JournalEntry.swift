/// One record of an app's durable journal, as stored and as served by the control API.
public struct JournalEntry: Codable, Sendable, Equatable {
    /// Increasing id, unique in the journal; `events --since ID` and the live stream resume from it.
    public var id: Int64
    /// The app the record belongs to (`appwarden` for records about no single app).
    public var app: String
    /// Wall-clock time, milliseconds since the Unix epoch.
    public var wallTimeMillis: Int64
    /// `analytics`, `state`, `decision`, `message` or `status`.
    public var kind: String
    /// The event's name: `$AppStart`, `suspended`, `memoryWarning`, …
    public var name: String
    /// Further properties (`reason`, `cold`, `from`, `to`, `duration_ms`, …) as strings.
    public var properties: [String: String]

    public init(
        id: Int64, app: String, wallTimeMillis: Int64, kind: String, name: String, properties: [String: String] = [:]
    ) {
        self.id = id
        self.app = app
        self.wallTimeMillis = wallTimeMillis
        self.kind = kind
        self.name = name
        self.properties = properties
    }
}

/// A query of the journal: `GET /v1/events?app=&since=&limit=`.
public struct JournalQuery: Codable, Sendable, Equatable {
    public var app: String?
    /// Only records with an id greater than this.
    public var sinceID: Int64?
    /// Only records at or after this wall-clock time (ms since the epoch).
    public var sinceMillis: Int64?
    public var limit: Int

    public init(app: String? = nil, sinceID: Int64? = nil, sinceMillis: Int64? = nil, limit: Int = 1000) {
        self.app = app
        self.sinceID = sinceID
        self.sinceMillis = sinceMillis
        self.limit = limit
    }
}
