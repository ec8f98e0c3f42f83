import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A minimal HTTP server on a real Unix-domain socket for client tests: it records each request
/// and answers with the pieces its responder returns, written one by one so that the client sees
/// them arrive separately.
final class ClientTestServer: Sendable {
    struct Request: Sendable, Equatable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: String
    }

    let socketPath: String
    private let directory: String
    private let listener: Int32
    private let recorded = Mutex<[Request]>([])
    private let responder: @Sendable (Request) -> [String]
    /// Signalled when the accept loop has returned, so that the listener's descriptor is closed
    /// only then: closed earlier, its number could be reused by the next test's socket and this
    /// loop would accept that test's connections.
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// A server on `directory/warden.sock`; a fresh temporary directory when nil.
    init(directory: String? = nil, responder: @escaping @Sendable (Request) -> [String]) throws {
        let directory = directory ?? NSTemporaryDirectory() + "appwarden-client-\(UUID().uuidString.prefix(8))"
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socketPath = directory + "/warden.sock"
        self.responder = responder
        #if canImport(Glibc)
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
            listener = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: socketPath])
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A server whose responder is told which request this is, counting from 1: for a test
    /// that answers the first requests one way and the next ones another.
    static func numbered(responder: @escaping @Sendable (Int) -> [String]) throws -> ClientTestServer {
        let served = Mutex(0)
        return try ClientTestServer { _ in
            responder(
                served.withLock { count in
                    count += 1
                    return count
                })
        }
    }

    /// Every request received so far, in order.
    var requests: [Request] { recorded.withLock { $0 } }

    /// Stops listening (waiting for the accept loop to end) and removes the socket's directory.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        acceptLoopEnded.wait()
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func acceptLoop() {
        defer { acceptLoopEnded.signal() }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var request: Request?
        while request == nil {
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, 4096) }
            guard count > 0 else { return }
            received += buffer[..<count]
            request = Self.parse(received)
        }
        guard let request else { return }
        recorded.withLock { $0.append(request) }
        for piece in responder(request) {
            let bytes = Array(piece.utf8)
            // A client that hung up makes this fail with EPIPE, not a SIGPIPE ending the tests.
            _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
            usleep(2_000)
        }
    }

    /// A complete request in `bytes`, or nil when more must arrive.
    private static func parse(_ bytes: [UInt8]) -> Request? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<headEnd.lowerBound].components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 {
                headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        let body = String(text[headEnd.upperBound...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard body.utf8.count >= length else { return nil }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body)
    }

    /// A complete response with a Content-Length body.
    static func response(_ status: Int, _ body: String) -> String {
        "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }
}
