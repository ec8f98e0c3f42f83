/// The status notifier of §1.5: the current coarse status of every app, and observers called
/// in registration order on every change.
///
/// The runtime and the simulator feed it the core's `publishStatus` actions (with
/// `publish(app:status:)` or `apply(_:)`); the core publishes only changes, and `terminating`
/// on every termination.
public struct StatusNotifier {
    private var statuses: [String: AppStatus] = [:]
    private var observers: [any AppStatusObserver] = []

    public init() {}

    /// Adds an observer; observers are called in the order they were added.
    public mutating func addObserver(_ observer: any AppStatusObserver) {
        observers.append(observer)
    }

    /// Removes an observer added before (compared by identity).
    public mutating func removeObserver(_ observer: any AppStatusObserver) {
        observers.removeAll { $0 === observer }
    }

    /// The app's current status: `unknown` until one was published.
    public func status(of app: String) -> AppStatus {
        statuses[app] ?? .unknown
    }

    /// Whether the app's current status is `foreground`.
    public func isInForeground(_ app: String) -> Bool {
        status(of: app) == .foreground
    }

    /// Records `status` for `app` and, if it changed, tells every observer in registration order.
    public mutating func publish(app: String, status: AppStatus) {
        guard statuses[app] != status else { return }
        statuses[app] = status
        for observer in observers {
            observer.appStatusDidChange(app: app, to: status)
        }
    }

    /// Publishes the `publishStatus` actions among `actions`, in order; the others are ignored.
    public mutating func apply(_ actions: [LifecycleAction]) {
        for action in actions {
            if case .publishStatus(let app, let status) = action {
                publish(app: app, status: status)
            }
        }
    }
}
