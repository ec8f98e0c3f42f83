import Hummingbird
public import Logging
import NIOCore

/// A read-only TCP listener for Prometheus (`appwarden serve --metrics-address HOST:PORT`): it
/// answers `GET /metrics` and nothing else (every other request is 404), with no caller identity,
/// since it changes nothing and shows only what `GET /metrics` on the control socket shows.
public struct MetricsServer: Sendable {
    let host: String
    let port: Int
    let exposition: @Sendable () async throws -> String?
    let logger: Logger
    let onListening: @Sendable (Int) async -> Void

    /// Creates a listener on `host:port` (port 0 picks a free one).
    ///
    /// - Parameters:
    ///   - exposition: The metrics text at the moment of a scrape (`DaemonControl.metricsExposition()`).
    ///   - onListening: Called with the bound port once the listener accepts connections.
    public init(
        host: String, port: Int, logger: Logger, exposition: @escaping @Sendable () async throws -> String?,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.exposition = exposition
        self.logger = logger
        self.onListening = onListening
    }

    /// Parses `HOST:PORT` (`127.0.0.1:9464`, `[::1]:9464`); the error says what was wrong.
    public static func address(_ text: String) throws(MetricsAddressError) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":") else {
            throw MetricsAddressError("The metrics address \"\(text)\" needs a port, such as \"127.0.0.1:9464\".")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            throw MetricsAddressError("The metrics address \"\(text)\" needs a host, such as \"127.0.0.1:9464\".")
        }
        guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw MetricsAddressError(
                "The metrics address \"\(text)\" needs a port from 0 to 65535 after the colon, such as \"127.0.0.1:9464\"."
            )
        }
        return (host, port)
    }

    /// Serves until the surrounding task is cancelled.
    public func run() async throws {
        let router = Router()
        let exposition = exposition
        router.get("/metrics") { _, _ -> Response in
            let text: String?
            do {
                text = try await exposition()
            } catch {
                // A daemon that is stopping has no figures to give: 503, as on the control socket.
                return Response(status: .serviceUnavailable)
            }
            guard let text else { return Response(status: .notFound) }
            return ControlServer.exposition(text)
        }
        let onListening = onListening
        do {
            try await HTTPService.run(
                router: router, address: .hostname(host, port: port),
                logger: ControlServer.frameworkLogger(from: logger)
            ) { channel in await onListening(channel.localAddress?.port ?? 0) }
        } catch is CancellationError {
            // Cancellation is how the listener is asked to stop.
        }
    }
}

/// A `--metrics-address` that is not `HOST:PORT`.
public struct MetricsAddressError: Error, Sendable, CustomStringConvertible {
    public var message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
