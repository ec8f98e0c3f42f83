/// A message to one app, on its own event stream (§1.2).
public enum AppMessage: Sendable, Equatable {
    /// The app's lifecycle state changed.
    case stateChanged(AppState)
    /// The background-task budget ends soon: end these tasks.
    case expirationWarning(taskIDs: [Int], remaining: Duration)
    /// A fetch window opened.
    case fetchStart(window: Duration)
    /// A silent push arrived; the window to `complete-push` opened.
    case pushPayload(payload: String, id: String?, window: Duration)
    /// A device the app handles was added or removed (`action`, with its udev `properties`);
    /// the window to `complete-accessory` opened (zero for an app in the foreground).
    case accessoryEvent(action: String, properties: [String: String], window: Duration)
    /// Memory is short: free what can be rebuilt.
    case memoryWarning
    /// The app used more than its background CPU budget over the last window (`percent` of one
    /// CPU against `limitPercent`); another such window terminates it (`cpuLimit`).
    case cpuWarning(percent: Int, limitPercent: Int, window: Duration)
    /// The system ended these activities: they ran unattended for the policy's `activity_limit`
    /// (rule 14). The app is in background without an activity now.
    case activitiesEnded(activityIDs: [Int], after: Duration)
    /// Save state to the restoration directory now.
    case saveState
}
