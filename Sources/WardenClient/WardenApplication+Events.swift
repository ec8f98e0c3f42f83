import Synchronization
public import WardenAPI
import WardenCore

extension WardenApplication {
    /// Reads the app's event stream (`/v1/events/stream?app=NAME`) and calls the handlers and
    /// observers for each event, until the task is cancelled.
    ///
    /// The stream survives daemon restarts: when the daemon goes away it connects again with
    /// backoff and resumes after the last event it handled, so that what the app must not miss
    /// while the daemon was away (an expiration warning, a fetch start, a push payload) is
    /// handled then, once; the handlers stay in place. It throws when the daemon refuses the
    /// stream (an app the policy no longer declares) or stays away longer than
    /// `connection.retry.streamOutageLimit` (never, by default).
    public func run() async throws {
        let (connection, app) = try configured()
        // From the journal id the daemon gave at launch, so that the event that launched the
        // app (a push, a fetch) is received even though it was delivered before this call.
        for try await entry in connection.events(JournalQuery(app: app, sinceID: eventsSince)) {
            handle(entry)
        }
    }

    /// Acts on one journal entry of the event stream.
    public func handle(_ entry: JournalEntry) {
        switch entry.event {
        case .status(let status):
            publish(app: entry.app, status: status)
        case .message(.stateChanged(let state)):
            publish(app: entry.app, status: state.status)
        case .message(.expirationWarning(let ids, _)):
            let due = handlers.withLock { handlers in ids.compactMap { handlers.expiration[$0] } }
            for handler in due { handler() }
        case .message(.fetchStart):
            guard let handler = handlers.withLock({ $0.fetch }) else { return }
            handler { result in Task { try? await self.completeFetch(result) } }
        case .message(.pushPayload(let payload, _, _)):
            guard let handler = handlers.withLock({ $0.push }) else { return }
            handler(payload) { result in Task { try? await self.completePush(result) } }
        case .message(.accessoryEvent(let action, let properties, let window)):
            guard let handler = handlers.withLock({ $0.accessory }) else { return }
            handler(action, properties) {
                // An event handed over in the foreground opens no window: nothing to complete.
                if window > .zero { Task { try? await self.completeAccessory() } }
            }
        case .message(.memoryWarning):
            handlers.withLock { $0.memoryWarning }?()
        case .message(.cpuWarning(let percent, let limitPercent, _)):
            handlers.withLock { $0.cpuWarning }?(percent, limitPercent)
        case .message(.activitiesEnded(let ids, _)):
            handlers.withLock { $0.activitiesEnded }?(ids.map(ActivityIdentifier.init(rawValue:)))
        case .message(.saveState):
            handlers.withLock { $0.saveState }?()
        case .analytics, .stateChange, .decision, .memoryKill, .system, .input, .unknown:
            break
        }
    }

    /// Records `app`'s status and tells the observers, in registration order, when it changed.
    private func publish(app: String, status: AppStatus) {
        let observers = handlers.withLock { handlers -> [any AppStatusObserver & Sendable] in
            guard handlers.statuses[app] != status else { return [] }
            handlers.statuses[app] = status
            return handlers.observers
        }
        for observer in observers { observer.appStatusDidChange(app: app, to: status) }
    }
}
