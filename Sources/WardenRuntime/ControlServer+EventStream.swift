import Foundation
import Hummingbird
import NIOCore
import WardenAPI

extension ControlServer {
    /// `GET /v1/events/stream`: server-sent events, one per journal entry (`id: N`,
    /// `data: <JournalEntry JSON>`). With `since`, the entries after that id are sent first, then
    /// the live ones, without gaps or repeats.
    func eventStream(_ query: JournalQuery) async -> Response {
        let live = await control.subscribe(app: query.app)
        let control = self.control
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
                for await entry in live where entry.id > lastID {
                    try await writer.write(Self.serverSentEvent(entry))
                }
                try await writer.finish(nil)
            }
        )
    }

    /// One server-sent event for `entry`.
    static func serverSentEvent(_ entry: JournalEntry) -> ByteBuffer {
        let data = (try? encoder.encode(entry)) ?? Data("{}".utf8)
        var buffer = ByteBuffer(string: "id: \(entry.id)\ndata: ")
        buffer.writeBytes(data)
        buffer.writeString("\n\n")
        return buffer
    }
}
