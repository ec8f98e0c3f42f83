/// The JSON bodies that app calls send (`POST /v1/apps/NAME/…`).
///
/// Each nested type is the body of one route; the server refuses a body that does not decode
/// with 400 and a sentence naming the field.
public enum ControlRequests {
    /// `POST /v1/apps/NAME/begin-task`: `{"name": "upload"}`.
    public struct BeginTask: Codable, Sendable, Equatable {
        public var name: String
        public init(name: String) { self.name = name }
    }

    /// `POST /v1/apps/NAME/end-task`: `{"id": 1}`.
    public struct EndTask: Codable, Sendable, Equatable {
        public var id: Int
        public init(id: Int) { self.id = id }
    }

    /// `POST /v1/apps/NAME/begin-activity`: `{"mode": "audio"}` (`audio`, `location` or `long-work`).
    public struct BeginActivity: Codable, Sendable, Equatable {
        public var mode: String
        public init(mode: String) { self.mode = mode }
    }

    /// `POST /v1/apps/NAME/end-activity`: `{"id": 1}`.
    public struct EndActivity: Codable, Sendable, Equatable {
        public var id: Int
        public init(id: Int) { self.id = id }
    }

    /// `POST /v1/apps/NAME/complete-fetch` and `/complete-push`: `{"result": "newData"}`
    /// (`newData`, `noData` or `failed`).
    public struct Completion: Codable, Sendable, Equatable {
        public var result: String
        public init(result: String) { self.result = result }
    }

    /// `POST /v1/apps/NAME/fetch-interval`: `{"interval": "15m"}` (`minimum`, `never` or a duration).
    public struct FetchInterval: Codable, Sendable, Equatable {
        public var interval: String
        public init(interval: String) { self.interval = interval }
    }

    /// `POST /v1/apps/NAME/acquire` and `/release`: `{"resource": "camera"}`.
    public struct Resource: Codable, Sendable, Equatable {
        public var resource: String
        public init(resource: String) { self.resource = resource }
    }

    /// `POST /v1/apps/NAME/report-status`: `{"status": "foreground"}` (`foreground` or `background`).
    public struct StatusReport: Codable, Sendable, Equatable {
        public var status: String
        public init(status: String) { self.status = status }
    }
}
