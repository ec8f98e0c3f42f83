/// An incremental parser of a `text/event-stream` body: feed it bytes and it returns each event
/// once its blank line arrives.
///
/// Follows the HTML living standard's rules for the fields that matter here: `id:` sets the
/// event's id, `data:` lines are joined with newlines, `event:` names it, lines starting with
/// `:` are comments, one space after the colon is dropped, and CRLF, LF or CR end a line.
public struct ServerSentEventParser: Sendable {
    /// One server-sent event.
    public struct Event: Sendable, Equatable {
        public var id: String?
        public var event: String?
        public var data: String

        public init(id: String? = nil, event: String? = nil, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    private var line: [UInt8] = []
    private var lastWasCR = false
    private var id: String?
    private var event: String?
    private var data: [String] = []

    public init() {}

    /// Parses `bytes`, returning the events they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if byte == 10 && lastWasCR {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == 13
            if byte == 10 || byte == 13 {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> Event? {
        defer { line = [] }
        if line.isEmpty {
            defer {
                id = nil
                event = nil
                data = []
            }
            guard !data.isEmpty else { return nil }
            return Event(id: id, event: event, data: data.joined(separator: "\n"))
        }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "id": id = String(value)
        case "event": event = String(value)
        case "data": data.append(String(value))
        default: break
        }
        return nil
    }
}
