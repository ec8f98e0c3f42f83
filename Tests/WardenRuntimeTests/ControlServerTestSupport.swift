import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import WardenAPI
import WardenCore
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// A `WardenControl` for the control server's tests: the real lifecycle core on a virtual clock
/// (one second per event), a journal in memory, an identity the test chooses, and a record of
/// every caller and every event it was asked to apply.
actor ControlServerDouble: WardenControl {
    private var lifecycle: Lifecycle
    private var now = Instant(sinceOrigin: .zero)
    private var journalEntries: [JournalEntry] = []
    private var subscribers: [(app: String?, continuation: AsyncStream<JournalEntry>.Continuation)] = []
    /// What `identify` answers.
    var identity: CallerIdentity = .operator
    /// Every peer the server identified, in order.
    private(set) var peers: [PeerCredentials] = []
    /// Every event the core accepted, in order.
    private(set) var accepted: [LifecycleEvent] = []
    /// What `reloadPolicy` throws, if anything.
    var reloadError: (any Error)?

    init(apps: [String]) {
        let policy = Policy(
            apps: apps.map { AppPolicy(name: $0, backgroundModes: [.fetch, .remoteNotification]) })
        lifecycle = Lifecycle(policy: policy)
    }

    func setIdentity(_ identity: CallerIdentity) {
        self.identity = identity
    }

    func identify(_ peer: PeerCredentials) async -> CallerIdentity {
        peers.append(peer)
        return identity
    }

    func perform(_ event: LifecycleEvent) async throws(LifecycleError) -> Reply? {
        now = now + .seconds(1)
        let actions = try lifecycle.handle(event, at: now)
        accepted.append(event)
        var reply: Reply?
        for action in actions {
            switch action {
            case .reply(let answer):
                reply = answer
            case .journal(let record):
                append(app: record.app, AppEvent(record.kind))
            default:
                break
            }
        }
        return reply
    }

    private func append(app: String, _ event: AppEvent) {
        let entry = JournalEntry(
            id: Int64(journalEntries.count + 1), app: app,
            wallTimeMillis: 1_700_000_000_000 + Int64(journalEntries.count), event: event)
        journalEntries.append(entry)
        for subscriber in subscribers where subscriber.app == nil || subscriber.app == app {
            subscriber.continuation.yield(entry)
        }
    }

    func apps() async -> [AppInfo] {
        lifecycle.snapshots(at: now).map(Self.info)
    }

    func app(named name: String) async -> AppInfo? {
        lifecycle.snapshot(of: name, at: now).map(Self.info)
    }

    private static func info(_ snapshot: AppSnapshot) -> AppInfo {
        AppInfo(
            name: snapshot.name, state: AppInfo.State(snapshot.state), status: AppInfo.Status(snapshot.status),
            footprintBytes: snapshot.footprint, band: snapshot.band.map(AppInfo.Band.init),
            openTasks: snapshot.openTasks.map { TaskInfo(id: $0.id, name: $0.name) },
            heldResources: snapshot.heldResources, forceQuit: snapshot.isForceQuit,
            hasPreservedState: snapshot.hasPreservedState)
    }

    func journal(_ query: JournalQuery) async throws -> [JournalEntry] {
        let matching = journalEntries.filter { entry in
            (query.app == nil || entry.app == query.app) && entry.id > (query.sinceID ?? 0)
                && entry.wallTimeMillis >= (query.sinceMillis ?? 0)
        }
        return Array(query.newest ? matching.suffix(query.limit) : matching.prefix(query.limit))
    }

    func explain(app: String) async throws(LifecycleError) -> Explanation {
        guard let state = lifecycle.state(of: app) else {
            throw LifecycleError.unknownApp(app)
        }
        let sentences = journalEntries.filter { $0.app == app }.compactMap { entry -> String? in
            guard case .stateChange(_, let to, let because) = entry.event else { return nil }
            return "It became \(to.rawValue) because \(because)."
        }
        return Explanation(app: app, state: AppInfo.State(state), sentences: sentences)
    }

    func subscribe(app: String?) async -> AsyncStream<JournalEntry> {
        let (stream, continuation) = AsyncStream.makeStream(of: JournalEntry.self)
        let ended = endedSubscriptions
        continuation.onTermination = { _ in ended.increment() }
        subscribers.append((app, continuation))
        return stream
    }

    /// How many live subscriptions ended (their stream was dropped or cancelled).
    nonisolated let endedSubscriptions = SubscriptionCounter()

    /// How many live subscriptions were opened.
    var subscriptionCount: Int { subscribers.count }

    func reloadPolicy(restartChanged: Bool) async throws -> ControlReplies.PolicyReloaded {
        if let reloadError { throw reloadError }
        return ControlReplies.PolicyReloaded(
            message: "The policy with \(lifecycle.policy.apps.count) apps is in force.")
    }

    func device() async -> DeviceInfo {
        DeviceInfo(pressure: lifecycle.memoryLevel.rawValue)
    }

    /// The metrics of the double's core (no device memory, no counters moved).
    func metricsExposition() async -> String? {
        WardenMetrics().exposition(
            of: WardenMetrics.Reading(
                apps: lifecycle.snapshots(at: now), level: lifecycle.memoryLevel, memory: lifecycle.policy.memory,
                device: nil))
    }

    nonisolated var metricsSource: WardenMetrics? { nil }

    func health() async -> Health {
        Health(
            ok: true, version: "test", policy: "test.toml", apps: lifecycle.policy.apps.count, pressure: "normal",
            cgroupLayout: "none", dryRun: true)
    }
}

/// A running control server on a socket in a fresh temporary directory, and an HTTP client
/// that talks to it over that socket.
struct ControlServerHarness {
    let socketPath: String
    let double: ControlServerDouble

    /// Starts a server for `double`, runs `body`, then stops the server and removes the directory.
    static func run(
        apps: [String] = ["mail", "maps"], heartbeat: Duration = .seconds(15),
        _ body: (ControlServerHarness) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("aw-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/control.sock"
        let double = ControlServerDouble(apps: apps)
        try await serve(double, on: socketPath, heartbeat: heartbeat) {
            try await body(ControlServerHarness(socketPath: socketPath, double: double))
        }
    }

    /// Runs a control server for `control` on `socketPath` while `body` runs.
    static func serve(
        _ control: any WardenControl, on socketPath: String, heartbeat: Duration = .seconds(15),
        _ body: () async throws -> Void
    ) async throws {
        let (listening, signal) = AsyncStream.makeStream(of: Void.self)
        let server = ControlServer(
            control: control, socketPath: socketPath, adminGroup: nil, logger: quietLogger,
            onListening: { signal.yield() }, heartbeat: heartbeat)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            for await _ in listening { break }
            do {
                try await body()
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    /// One request; returns the status and the body.
    func request(
        _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> (status: Int, body: String) {
        try await Self.request(socketPath: socketPath, method, path, body: body, headers: headers)
    }

    /// One request over the socket at `socketPath`; returns the status and the body.
    static func request(
        socketPath: String, _ method: HTTPMethod, _ path: String, body: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> (status: Int, body: String) {
        guard let url = URL(httpURLWithSocketPath: socketPath, uri: path) else {
            throw HarnessError(message: "The socket path \(socketPath) cannot form a URL.")
        }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: buffer))
    }

    /// The JSON object of a body.
    static func object(_ body: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw HarnessError(message: "The body is not a JSON object: \(body)")
        }
        return object
    }

    /// The `error` code and `message` of an error body.
    static func error(_ body: String) throws -> APIErrorBody {
        try JSONDecoder().decode(APIErrorBody.self, from: Data(body.utf8))
    }
}

/// A logger that keeps the server's shutdown messages out of the test output.
let quietLogger: Logger = {
    var logger = Logger(label: "appwarden.control.test")
    logger.logLevel = .critical
    return logger
}()

/// A count that the subscription streams' termination handlers raise from any thread.
final class SubscriptionCounter: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}

struct HarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension ControlServerDouble {
    func setReloadError(_ error: any Error) {
        reloadError = error
    }
}
