#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A blocking HTTP/1.1 client on one kept-open Unix socket, as a dashboard polling the control
/// API would hold one: requests go one after another on the same connection.
///
/// Only what the benchmarks need: a request without a body, an answer with `Content-Length`.
final class KeepAliveClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `path`; nil when nobody accepts there (yet).
    init?(socketPath path: String) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        #if canImport(Glibc)
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)
        #endif
        guard fd >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Sends `method path` and returns the answer's status and body; nil when the connection
    /// broke or the answer could not be read.
    func request(_ method: String, _ path: String) -> (status: Int, body: [UInt8])? {
        let head = Array("\(method) \(path) HTTP/1.1\r\nHost: appwarden\r\nContent-Length: 0\r\n\r\n".utf8)
        var sent = 0
        while sent < head.count {
            let count = head[sent...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            sent += count
        }
        // The head: up to the blank line.
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.blankLine(in: buffer)
            if headEnd == nil, !receive() { return nil }
        }
        guard let end = headEnd else { return nil }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { return nil }
        var length = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].drop(while: { $0 == " " })) ?? 0
            }
        }
        let total = end + 4 + length
        while buffer.count < total {
            guard receive() else { return nil }
        }
        let body = Array(buffer[(end + 4)..<total])
        buffer.removeFirst(total)
        return (status, body)
    }

    /// Appends what the socket has to the buffer; false at the end of the stream or on an error.
    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
    }

    /// Where `\r\n\r\n` starts in `bytes`.
    private static func blankLine(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
