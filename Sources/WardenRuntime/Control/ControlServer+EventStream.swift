import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import WardenAPI
import WardenCore

extension ControlServer {
    /// `GET /v1/events/stream`: server-sent events, one per journal entry (`id: N`,
    /// `data: <JournalEntry JSON>`). With `since` (or a `Last-Event-ID` header), the entries after
    /// that id are sent first, then the live ones, without gaps or repeats. A comment line every `heartbeat` keeps idle
    /// streams open through proxies and notices a client that went away, which ends its
    /// subscription.
    /// A daemon that is stopping refuses the stream (503) before it starts.
    func eventStream(_ query: JournalQuery) async throws -> Response {
        let live = try await control.subscribe(app: query.app)
        let control = self.control
        let heartbeat = self.heartbeat
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": appwarden event stream\n\n"))
                var lastID: Int64 = -1
                if query.sinceID != nil || query.sinceMillis != nil {
                    var page = query
                    while true {
                        let entries = try await control.journal(page)
                        for entry in entries {
                            try await writer.write(Self.serverSentEvent(entry))
                            lastID = entry.id
                        }
                        guard entries.count == page.limit, let last = entries.last else { break }
                        page.sinceID = last.id
                    }
                }
                let (events, relay) = AsyncStream.makeStream(of: StreamEvent.self)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await entry in live { relay.yield(.entry(entry)) }
                        relay.finish()
                    }
                    group.addTask {
                        while true {
                            do {
                                try await Task.sleep(for: heartbeat)
                            } catch {
                                return
                            }
                            relay.yield(.heartbeat)
                        }
                    }
                    for await event in events {
                        switch event {
                        case .entry(let entry) where entry.id > lastID && query.matches(entry):
                            try await writer.write(Self.serverSentEvent(entry))
                        case .entry:
                            continue
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        }
                    }
                    group.cancelAll()
                }
                try await writer.finish(nil)
            }
        )
    }

    /// The query with the standard `Last-Event-ID` header as its `since` id, when the query
    /// gives neither `since` nor `sinceTime`: how a reconnecting client resumes after the last
    /// event it received.
    static func resuming(_ query: JournalQuery, from request: Request) throws(ControlServerFailure) -> JournalQuery {
        guard query.sinceID == nil, query.sinceMillis == nil, let name = Self.lastEventIDHeader,
            let text = request.headers[name]
        else {
            return query
        }
        guard let id = Int64(text.trimmingWhitespace()), id >= 0 else {
            throw .invalid("The Last-Event-ID header must be an event id of at least 0, not \"\(text)\".")
        }
        var resumed = query
        resumed.sinceID = id
        return resumed
    }

    /// `Last-Event-ID`: the id of the last event a reconnecting client received.
    static let lastEventIDHeader = HTTPField.Name("Last-Event-ID")

    /// One server-sent event for `entry`.
    static func serverSentEvent(_ entry: JournalEntry) -> ByteBuffer {
        let data = (try? SortedJSONEncoder.encode(entry)) ?? Array("{}".utf8)
        var buffer = ByteBuffer(string: "id: \(entry.id)\ndata: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }
}

/// What the event stream writes next: a journal entry, or a heartbeat comment.
enum StreamEvent: Sendable {
    case entry(JournalEntry)
    case heartbeat
}
