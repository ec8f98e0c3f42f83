/// An incremental decoder of one HTTP/1.1 response: feed it bytes as they arrive and it returns
/// the head, then body bytes (Content-Length, chunked or until the connection closes), then the end.
struct HTTPResponseDecoder {
    enum Part: Equatable {
        case head(status: Int, headers: [(String, String)])
        case body([UInt8])
        case end

        static func == (lhs: Part, rhs: Part) -> Bool {
            switch (lhs, rhs) {
            case (.head(let a, let x), .head(let b, let y)):
                a == b && x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
            case (.body(let a), .body(let b)): a == b
            case (.end, .end): true
            default: false
            }
        }
    }

    private enum State {
        case head
        case fixedLength(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    private var state = State.head
    private var buffer: [UInt8] = []
    /// Whether the request was HEAD or the status has no body.
    var expectsNoBody = false

    /// Decodes as much of `bytes` (and what was buffered before) as possible.
    mutating func feed(_ bytes: [UInt8]) throws(WardenClientError) -> [Part] {
        buffer += bytes
        var parts: [Part] = []
        while true {
            switch state {
            case .done:
                return parts
            case .head:
                guard let end = Self.find([13, 10, 13, 10], in: buffer) else {
                    if buffer.count > 65_536 { throw Self.violation("The response head is longer than 64 KiB.") }
                    return parts
                }
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let (status, headers) = try Self.parseHead(text)
                parts.append(.head(status: status, headers: headers))
                let header = { (name: String) in headers.last { $0.0.lowercased() == name }?.1 }
                if expectsNoBody || status == 204 || status == 304 || (100..<200).contains(status) {
                    state = .done
                    parts.append(.end)
                } else if header("transfer-encoding")?.lowercased().contains("chunked") == true {
                    state = .chunkSize
                } else if let lengthText = header("content-length") {
                    guard let length = Int(lengthText.trimmed), length >= 0 else {
                        throw Self.violation("The Content-Length \"\(lengthText)\" is not a number.")
                    }
                    state = .fixedLength(remaining: length)
                } else {
                    state = .untilClose
                }
            case .fixedLength(let remaining):
                if remaining == 0 {
                    state = .done
                    parts.append(.end)
                    continue
                }
                guard !buffer.isEmpty else { return parts }
                let take = min(remaining, buffer.count)
                parts.append(.body(Array(buffer[..<take])))
                buffer.removeFirst(take)
                state = .fixedLength(remaining: remaining - take)
            case .chunkSize:
                guard let end = Self.find([13, 10], in: buffer) else { return parts }
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init)?.trimmed ?? ""
                guard let size = Int(sizeText, radix: 16), size >= 0 else {
                    throw Self.violation("The chunk size \"\(line)\" is not a hexadecimal number.")
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard !buffer.isEmpty else { return parts }
                let take = min(remaining, buffer.count)
                parts.append(.body(Array(buffer[..<take])))
                buffer.removeFirst(take)
                state = remaining == take ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .chunkDataEnd:
                guard buffer.count >= 2 else { return parts }
                guard buffer[0] == 13, buffer[1] == 10 else {
                    throw Self.violation("A chunk does not end with CRLF.")
                }
                buffer.removeFirst(2)
                state = .chunkSize
            case .trailers:
                guard let end = Self.find([13, 10], in: buffer) else { return parts }
                buffer.removeFirst(end + 2)
                if end == 0 {
                    state = .done
                    parts.append(.end)
                }
            case .untilClose:
                guard !buffer.isEmpty else { return parts }
                parts.append(.body(buffer))
                buffer = []
            }
        }
    }

    /// The connection closed: ends a body that runs until close, and fails a truncated one.
    mutating func finish() throws(WardenClientError) -> [Part] {
        switch state {
        case .done: return []
        case .untilClose:
            state = .done
            return [.end]
        case .head: throw Self.violation("The connection closed before a complete response head arrived.")
        default: throw Self.violation("The connection closed in the middle of the response body.")
        }
    }

    private static func parseHead(_ text: String) throws(WardenClientError) -> (Int, [(String, String)]) {
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first.map(String.init) ?? ""
        let fields = statusLine.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/1."), let status = Int(fields[1]) else {
            throw violation("The status line \"\(statusLine)\" is not an HTTP/1.1 status line.")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw violation("The header line \"\(line)\" has no colon.")
            }
            headers.append((String(line[..<colon]).trimmed, String(line[line.index(after: colon)...]).trimmed))
        }
        return (status, headers)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }

    private static func violation(_ message: String) -> WardenClientError {
        WardenClientError(.protocolViolation, message)
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
