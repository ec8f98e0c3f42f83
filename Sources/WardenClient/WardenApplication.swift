public import FoundationEssentials
import Synchronization
import WardenAPI
public import WardenCore

/// An app's side of appwarden, shaped like UIKit's `UIApplication`: background tasks, fetch and
/// push handlers, the device token, memory warnings, state restoration and the status notifier.
///
/// Calls go to the daemon's control socket; events (expiration warnings, fetch and push
/// windows, memory warnings, status changes) arrive while `run()` reads the app's event stream,
/// which follows the daemon across restarts.
///
/// A call made while the daemon is away waits for it as `connection.retry` allows (10 seconds
/// by default). Every call is tried again while the socket is missing or refuses connections,
/// since the daemon has not seen it then. When the daemon goes away after a call was sent, only
/// the calls that are safe to repeat are sent again: `backgroundTimeRemaining`,
/// `registerForRemoteNotifications()`, `setMinimumBackgroundFetchInterval(_:)` and
/// `reportStatus(_:)`; the others (`ready()`, `beginBackgroundTask`, `endBackgroundTask(_:)`,
/// `completeFetch(_:)`, `completePush(_:)`, `acquire(_:)`, `release(_:)`) fail with a
/// `.connection` error saying the call may or may not have taken effect.
public final class WardenApplication: Sendable {
    /// The app as configured by the daemon's environment (`APPWARDEN_SOCKET`, `APPWARDEN_APP`,
    /// `APPWARDEN_LAUNCH_REASON`, `APPWARDEN_RESTORATION_DIR`, `APPWARDEN_RESTORE`). Without
    /// them every call fails with `.notConfigured`.
    public static let shared = WardenApplication(environment: ProcessInfo.processInfo.environment)

    /// The app's name in the policy, nil when not started by appwarden.
    public let appName: String?
    /// The daemon's socket, nil when not started by appwarden.
    public let connection: WardenConnection?
    /// Why this process was launched: `user`, `fetch`, `push` or `accessory`.
    public let launchReason: LaunchReason
    /// Where to save and restore the app's state.
    public let restorationDirectory: String?
    /// Whether this launch should restore from `restorationDirectory`.
    public let shouldRestore: Bool
    /// The journal id the app's event stream starts after (`APPWARDEN_EVENTS_SINCE`); nil: live only.
    public let eventsSince: Int64?

    let handlers = Mutex(Handlers())

    struct Handlers {
        var fetch: (@Sendable (@escaping @Sendable (CompletionResult) -> Void) -> Void)?
        var push: (@Sendable (String, @escaping @Sendable (CompletionResult) -> Void) -> Void)?
        var accessory: (@Sendable (String, [String: String], @escaping @Sendable () -> Void) -> Void)?
        var memoryWarning: (@Sendable () -> Void)?
        var cpuWarning: (@Sendable (_ percent: Int, _ limitPercent: Int) -> Void)?
        var activitiesEnded: (@Sendable (_ activities: [ActivityIdentifier]) -> Void)?
        var saveState: (@Sendable () -> Void)?
        var expiration: [Int: @Sendable () -> Void] = [:]
        var observers: [any AppStatusObserver & Sendable] = []
        var statuses: [String: AppStatus] = [:]
    }

    /// An app talking to the daemon at `socketPath` as `appName`.
    public init(
        socketPath: String, appName: String, launchReason: LaunchReason = .user, restorationDirectory: String? = nil,
        shouldRestore: Bool = false, eventsSince: Int64? = nil, retry: WardenConnection.RetryPolicy = .init()
    ) {
        self.appName = appName
        self.connection = WardenConnection(socketPath: socketPath, retry: retry)
        self.launchReason = launchReason
        self.restorationDirectory = restorationDirectory
        self.shouldRestore = shouldRestore
        self.eventsSince = eventsSince
    }

    /// An app configured from environment variables as the daemon sets them.
    public init(environment: [String: String]) {
        let socket = environment["APPWARDEN_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let name = environment["APPWARDEN_APP"].flatMap { $0.isEmpty ? nil : $0 }
        if let socket, let name {
            appName = name
            connection = WardenConnection(socketPath: socket)
        } else {
            appName = nil
            connection = nil
        }
        launchReason = environment["APPWARDEN_LAUNCH_REASON"].flatMap(LaunchReason.init(rawValue:)) ?? .user
        restorationDirectory = environment["APPWARDEN_RESTORATION_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        shouldRestore = environment["APPWARDEN_RESTORE"] == "1"
        eventsSince = environment["APPWARDEN_EVENTS_SINCE"].flatMap { Int64($0) }
    }

    // MARK: App calls

    /// Tells the daemon the app finished launching (`readiness = "notify"`).
    public func ready() async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(ControlAPI.ready, [app])
    }

    /// Begins a background task; `expirationHandler` runs when the daemon warns that the budget
    /// is about to run out (end the task in it, or the app is terminated).
    public func beginBackgroundTask(
        withName name: String, expirationHandler: (@Sendable () -> Void)? = nil
    ) async throws -> BackgroundTaskIdentifier {
        let (connection, app) = try configured()
        let begun = try await connection.call(ControlAPI.beginTask, [app], body: ControlRequests.BeginTask(name: name))
        if let expirationHandler {
            handlers.withLock { $0.expiration[begun.id] = expirationHandler }
        }
        return BackgroundTaskIdentifier(rawValue: begun.id)
    }

    /// Ends a background task.
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) async throws {
        _ = handlers.withLock { $0.expiration.removeValue(forKey: identifier.rawValue) }
        let (connection, app) = try configured()
        _ = try await connection.call(ControlAPI.endTask, [app], body: ControlRequests.EndTask(id: identifier.rawValue))
    }

    /// Begins continuous background work under one of the app's continuous background modes
    /// (`audio`, `location`, `long-work`): until it ends, the app keeps running in background
    /// with no task budget and is not suspended.
    public func beginActivity(_ mode: String) async throws -> ActivityIdentifier {
        let (connection, app) = try configured()
        let begun = try await connection.call(
            ControlAPI.beginActivity, [app], body: ControlRequests.BeginActivity(mode: mode))
        return ActivityIdentifier(rawValue: begun.id)
    }

    /// Ends continuous background work begun with `beginActivity(_:)`.
    public func endActivity(_ identifier: ActivityIdentifier) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(
            ControlAPI.endActivity, [app], body: ControlRequests.EndActivity(id: identifier.rawValue))
    }

    /// Seconds of background-task budget left; `.greatestFiniteMagnitude` in the foreground,
    /// where no budget runs (as UIKit's `backgroundTimeRemaining`).
    public var backgroundTimeRemaining: TimeInterval {
        get async throws {
            let (connection, app) = try configured()
            let answer = try await connection.call(ControlAPI.timeRemaining, [app])
            guard let millis = answer.remainingMillis else { return .greatestFiniteMagnitude }
            return TimeInterval(millis) / 1000
        }
    }

    /// Registers for silent pushes and returns the app's device token.
    public func registerForRemoteNotifications() async throws -> String {
        let (connection, app) = try configured()
        return try await connection.call(ControlAPI.registerPush, [app]).token
    }

    /// Sets the fetch interval: `"minimum"`, `"never"` or a duration such as `"15m"`.
    public func setMinimumBackgroundFetchInterval(_ interval: String) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(
            ControlAPI.fetchInterval, [app], body: ControlRequests.FetchInterval(interval: interval))
    }

    /// Reports that a fetch window's work is done.
    public func completeFetch(_ result: CompletionResult) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(
            ControlAPI.completeFetch, [app], body: ControlRequests.Completion(result: result.rawValue))
    }

    /// Reports that a push window's work is done.
    public func completePush(_ result: CompletionResult) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(
            ControlAPI.completePush, [app], body: ControlRequests.Completion(result: result.rawValue))
    }

    /// Reports that an accessory window's work is done.
    public func completeAccessory() async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(ControlAPI.completeAccessory, [app])
    }

    /// Acquires a shared resource declared in the policy (holding it at suspension terminates the app).
    public func acquire(_ resource: String) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(ControlAPI.acquire, [app], body: ControlRequests.Resource(resource: resource))
    }

    /// Releases a shared resource.
    public func release(_ resource: String) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(ControlAPI.release, [app], body: ControlRequests.Resource(resource: resource))
    }

    /// Reports the app's own status (`status_source = "reported"`): foreground or background.
    public func reportStatus(_ status: AppStatus) async throws {
        let (connection, app) = try configured()
        _ = try await connection.call(
            ControlAPI.reportStatus, [app], body: ControlRequests.StatusReport(status: status.description))
    }

    // MARK: Handlers

    /// Sets the handler of fetch windows; it must call `completion` within the window.
    public func onFetch(
        _ handler: @escaping @Sendable (_ completion: @escaping @Sendable (CompletionResult) -> Void) -> Void
    ) {
        handlers.withLock { $0.fetch = handler }
    }

    /// Sets the handler of silent pushes (the payload's JSON text); it must call `completion`
    /// within the window.
    public func onPush(
        _ handler:
            @escaping @Sendable (_ payload: String, _ completion: @escaping @Sendable (CompletionResult) -> Void) ->
            Void
    ) {
        handlers.withLock { $0.push = handler }
    }

    /// Sets the handler of accessory events (rule 14): a device the policy's `accessories`
    /// match was added, removed or changed (`action`), with its udev `properties`; it must call
    /// `completion` within the window.
    public func onAccessory(
        _ handler:
            @escaping @Sendable (
                _ action: String, _ properties: [String: String], _ completion: @escaping @Sendable () -> Void
            ) -> Void
    ) {
        handlers.withLock { $0.accessory = handler }
    }

    /// Sets the handler called when the system ends the app's activities: they ran unattended
    /// for the policy's `activity_limit`, and the app is in background without one.
    public func onActivitiesEnded(_ handler: @escaping @Sendable (_ activities: [ActivityIdentifier]) -> Void) {
        handlers.withLock { $0.activitiesEnded = handler }
    }

    /// Sets the handler of memory warnings.
    public func onMemoryWarning(_ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0.memoryWarning = handler }
    }

    /// Sets the handler of background CPU warnings: the app used `percent` of one CPU over the
    /// last window in background, above its budget of `limitPercent`; another such window
    /// terminates it (`cpuLimit`). Do less in background, or end the work.
    public func onCPUWarning(_ handler: @escaping @Sendable (_ percent: Int, _ limitPercent: Int) -> Void) {
        handlers.withLock { $0.cpuWarning = handler }
    }

    /// Sets the handler of "save your state" requests (write to `restorationDirectory`).
    public func onSaveState(_ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0.saveState = handler }
    }

    // MARK: Status notifier

    /// Adds an observer, called in registration order on every status change seen on the event stream.
    public func addObserver(_ observer: any AppStatusObserver & Sendable) {
        handlers.withLock { $0.observers.append(observer) }
    }

    /// Removes an observer added before.
    public func removeObserver(_ observer: any AppStatusObserver & Sendable) {
        handlers.withLock { $0.observers.removeAll { $0 === observer } }
    }

    /// The last status seen for `app` on the event stream; `.unknown` before any.
    public func status(of app: String) -> AppStatus {
        handlers.withLock { $0.statuses[app] } ?? .unknown
    }

    /// Whether `app`'s last seen status is foreground.
    public func isInForeground(_ app: String) -> Bool {
        status(of: app) == .foreground
    }

    // MARK: Plumbing

    func configured() throws(WardenClientError) -> (WardenConnection, String) {
        guard let connection, let appName else {
            throw WardenClientError(
                .notConfigured,
                "APPWARDEN_SOCKET and APPWARDEN_APP are not set; the app was not started by appwarden.")
        }
        return (connection, appName)
    }
}
