import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Serves a router over HTTP/1.1 as Hummingbird's `Application` does, without its date timer:
/// `Application` keeps the `Date` header's text fresh with a task that wakes every second,
/// which is most of what an idle daemon would otherwise do. Here the text is made when a
/// response needs it, at most once a second.
enum HTTPService {
    /// Serves `router` at `address` until the surrounding task is cancelled.
    static func run<Context: RequestContext>(
        router: Router<Context>, address: BindAddress, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) async throws where Context: InitializableFromSource<ApplicationRequestContextSource> {
        let responder = router.buildResponder()
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: ServerConfiguration(address: address, serverName: "appwarden"),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { request, writer, channel in
                let context = Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    logger.debug("Unrecognised error", metadata: ["error": "\(error)"])
                    response = Response(status: .internalServerError)
                }
                response.headers[.date] = HTTPDate.now()
                response.headers[.server] = "appwarden"
                do {
                    try await writer.write(response: response.head, body: response.body)
                } catch is HTTPParserError {
                    // Rethrown as is, the parser error would make the channel write a second
                    // response; any other error closes the connection.
                    throw ResponseWriteFailed()
                }
            }, onServerRunning: onServerRunning)
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        try await group.run()
    }

    /// A response could not be written because the request turned out malformed meanwhile.
    struct ResponseWriteFailed: Error {}
}

/// The `Date` header's text (RFC 9110 IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT"), made
/// again only when the second changes.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    /// The text for now.
    static func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = Int(now.tv_sec)
        if let text = cache.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(secondsSinceEpoch: second)
        cache.withLock { $0 = (second, text) }
        return text
    }

    /// The text for a time in whole seconds since the epoch.
    static func format(secondsSinceEpoch second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
