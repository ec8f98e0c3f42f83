/// The control API's calls in one table: each app call, operator verb and read with its
/// method, path, request body and reply type. The server registers its routes from it,
/// `WardenClient` builds its requests from it and `docs/openapi.yaml` lists the same routes.
public enum ControlAPI {
    // MARK: App calls (`/v1/apps/{app}/…`, an app's own processes or an operator)

    public static let ready = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/apps/{app}/ready")
    public static let beginTask = APIEndpoint<ControlRequests.BeginTask, ControlReplies.TaskBegun>(
        .post, "/v1/apps/{app}/begin-task")
    public static let endTask = APIEndpoint<ControlRequests.EndTask, ControlReplies.Done>(
        .post, "/v1/apps/{app}/end-task")
    public static let beginActivity = APIEndpoint<ControlRequests.BeginActivity, ControlReplies.ActivityBegun>(
        .post, "/v1/apps/{app}/begin-activity")
    public static let endActivity = APIEndpoint<ControlRequests.EndActivity, ControlReplies.Done>(
        .post, "/v1/apps/{app}/end-activity")
    public static let timeRemaining = APIEndpoint<NoBody, ControlReplies.TimeRemaining>(
        .get, "/v1/apps/{app}/time-remaining")
    public static let completeFetch = APIEndpoint<ControlRequests.Completion, ControlReplies.Done>(
        .post, "/v1/apps/{app}/complete-fetch")
    public static let completePush = APIEndpoint<ControlRequests.Completion, ControlReplies.Done>(
        .post, "/v1/apps/{app}/complete-push")
    public static let completeAccessory = APIEndpoint<NoBody, ControlReplies.Done>(
        .post, "/v1/apps/{app}/complete-accessory")
    public static let fetchInterval = APIEndpoint<ControlRequests.FetchInterval, ControlReplies.Done>(
        .post, "/v1/apps/{app}/fetch-interval", idempotent: true)
    public static let registerPush = APIEndpoint<NoBody, ControlReplies.DeviceToken>(
        .post, "/v1/apps/{app}/register-push", idempotent: true)
    public static let acquire = APIEndpoint<ControlRequests.Resource, ControlReplies.Done>(
        .post, "/v1/apps/{app}/acquire")
    public static let release = APIEndpoint<ControlRequests.Resource, ControlReplies.Done>(
        .post, "/v1/apps/{app}/release")
    public static let reportStatus = APIEndpoint<ControlRequests.StatusReport, ControlReplies.Done>(
        .post, "/v1/apps/{app}/report-status", idempotent: true)

    // MARK: Operator verbs (root or the socket's group)

    public static let open = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/open/{app}")
    public static let forceQuit = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/force-quit/{app}")
    public static let reset = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/reset/{app}")
    public static let home = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/home")
    public static let overlay = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/overlay")
    public static let overlayEnd = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/overlay-end")
    public static let lock = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/lock")
    public static let unlock = APIEndpoint<NoBody, ControlReplies.Done>(.post, "/v1/unlock")
    /// A silent push to an app; the body is the payload's JSON text as given.
    public static let push = APIEndpoint<RawJSON, ControlReplies.PushAccepted>(.post, "/v1/push/{app}")
    /// A silent push to a device token.
    public static let pushToken = APIEndpoint<RawJSON, ControlReplies.PushAccepted>(
        .post, "/v1/push-token/{token}")
    public static let reloadPolicy = APIEndpoint<NoBody, ControlReplies.PolicyReloaded>(.post, "/v1/policy/reload")

    // MARK: Reads

    public static let apps = APIEndpoint<NoBody, [AppInfo]>(.get, "/v1/apps")
    public static let app = APIEndpoint<NoBody, AppInfo>(.get, "/v1/apps/{app}")
    public static let explain = APIEndpoint<NoBody, Explanation>(.get, "/v1/apps/{app}/explain")
    /// The journal; the query is a `JournalQuery`.
    public static let events = APIEndpoint<NoBody, [JournalEntry]>(.get, "/v1/events")
    /// The live journal as server-sent events, one `JournalEntry` each.
    public static let eventStream = APIEndpoint<NoBody, JournalEntry>(.get, "/v1/events/stream")
    public static let health = APIEndpoint<NoBody, Health>(.get, "/v1/health")
    /// Device memory, the pressure level, the thresholds and the last kills, for `appwarden top`.
    public static let device = APIEndpoint<NoBody, DeviceInfo>(.get, "/v1/device")
    /// The Prometheus text exposition format (plain text, not JSON).
    public static let metrics = APIEndpoint<NoBody, String>(.get, "/metrics")

    /// The operator verbs that name one app, in the order of DESIGN §1.1.
    public static let appVerbs = [open, forceQuit, reset]
    /// The operator verbs that name no app.
    public static let screenVerbs = [home, overlay, overlayEnd, lock, unlock]

    /// Every route of the table as `METHOD /path/{parameter}`, the form of `docs/openapi.yaml`.
    public static var routes: [String] {
        let appCalls: [any APIRoute] = [
            ready, beginTask, endTask, beginActivity, endActivity, timeRemaining, completeFetch, completePush,
            completeAccessory, fetchInterval, registerPush,
            acquire, release, reportStatus,
        ]
        let verbs: [any APIRoute] = appVerbs + screenVerbs + [push, pushToken, reloadPolicy]
        let reads: [any APIRoute] = [apps, app, explain, events, eventStream, health, device, metrics]
        return (appCalls + verbs + reads).map(\.route).sorted()
    }
}
