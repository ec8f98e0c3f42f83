public import WardenAPI
public import WardenCore

extension JournalStore {
    /// A stored entry for a core record.
    public static func entry(_ record: JournalRecord, id: Int64, wallTimeMillis: Int64) -> JournalEntry {
        JournalEntry(id: id, app: record.app, wallTimeMillis: wallTimeMillis, event: AppEvent(record.kind))
    }

    /// Appends a message to an app (as delivered on its event stream); id assigned.
    @discardableResult
    public func append(app: String, message: AppMessage, wallTimeMillis: Int64) throws -> JournalEntry {
        try append(app: app, event: .message(message), wallTimeMillis: wallTimeMillis)
    }

    /// Appends a status publication; id assigned.
    @discardableResult
    public func append(app: String, status: AppStatus, wallTimeMillis: Int64) throws -> JournalEntry {
        try append(app: app, event: .status(status), wallTimeMillis: wallTimeMillis)
    }

    /// Appends an entry given by its stored fields, as an older daemon wrote them; id assigned.
    @discardableResult
    public func append(
        app: String, kind: String, name: String, properties: [String: String], wallTimeMillis: Int64
    ) throws -> JournalEntry {
        try append(
            app: app, event: AppEvent(kind: kind, name: name, properties: properties), wallTimeMillis: wallTimeMillis)
    }
}
