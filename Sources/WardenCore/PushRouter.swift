/// Rule 5 bookkeeping for all apps: device tokens, hourly wake slots, dedupe, coalescing.
///
/// - Tokens are `"tok-APP-N"`, N counting 1, 2, 3… per app, so that a replayed sequence of
///   calls hands out the same tokens. A rotation (reinstall) makes every earlier token of
///   the app stale.
/// - An app is woken at most `max_per_hour` times in any sliding hour: a wake at `t`
///   occupies one slot until `t + 1h`. A push that finds no free slot is coalesced: it is
///   held as the app's only pending push (a newer one replaces it) until the oldest wake
///   of the hour expires.
/// - Ids are remembered per app once delivered (woken now, taken from the coalesced slot, or
///   taken for a launch); a later push with a delivered id is a duplicate. A coalesced or
///   pending push that a newer one replaced was never delivered, so its id stays usable.
/// - A push to a force-quit app is kept for the app's next launch (newest only); it replaces
///   a push coalesced before the force-quit, and a launch takes a coalesced push if no push
///   was kept for it.
/// - A push without `content-available` wakes nothing and is not recorded.
public struct PushRouter: Sendable {
    /// The span in which `max_per_hour` wakes are counted.
    public static let slotSpan: Duration = .seconds(3600)

    private struct AppPushes: Sendable {
        /// How many tokens the app has been given.
        var tokenCount = 0
        /// The current token, if one was handed out since the last rotation.
        var currentToken: String?
        /// Times of the wakes that may still occupy a slot, oldest first.
        var wakes: [Instant] = []
        /// Ids delivered to the app.
        var deliveredIDs: Set<String> = []
        /// The push held until the next slot.
        var coalesced: Pending?
        /// The push held for the next launch after a force-quit.
        var pendingLaunch: Pending?
    }

    private var apps: [String: AppPushes] = [:]
    /// Every token ever handed out, and its app.
    private var tokenOwners: [String: String] = [:]

    public init() {}

    /// The app's current device token (created on first use; unique per install; deterministic
    /// given the same sequence of calls, e.g. "tok-mail-1", so scenarios can be replayed).
    public mutating func token(for app: String) -> String {
        if let token = apps[app]?.currentToken { return token }
        return issueToken(for: app)
    }

    /// A reinstall: a new token; the old one becomes stale.
    ///
    /// An app that was never given a token has nothing to rotate; its first token is then
    /// created on first use as usual.
    public mutating func rotateToken(for app: String) {
        guard apps[app]?.currentToken != nil else { return }
        _ = issueToken(for: app)
    }

    private mutating func issueToken(for app: String) -> String {
        var state = apps[app] ?? AppPushes()
        state.tokenCount += 1
        let token = "tok-\(app)-\(state.tokenCount)"
        state.currentToken = token
        apps[app] = state
        tokenOwners[token] = app
        return token
    }

    public enum TokenLookup: Sendable, Equatable {
        case app(String)
        case stale(app: String)
        case unknown
    }

    /// Which app a token addresses: the app if it is the app's current token, `stale` if it
    /// was the app's token before a rotation, `unknown` if it was never handed out.
    public func lookup(token: String) -> TokenLookup {
        guard let app = tokenOwners[token] else { return .unknown }
        return apps[app]?.currentToken == token ? .app(app) : .stale(app: app)
    }

    public struct Pending: Sendable, Equatable {
        public var payload: String
        public var id: String?

        public init(payload: String, id: String?) {
            self.payload = payload
            self.id = id
        }
    }

    public enum Admission: Sendable, Equatable {
        /// Wake the app now (a slot was taken).
        case deliver
        /// Held as the app's newest pending push until its next slot.
        case coalesce(until: Instant)
        /// The app is force-quit: kept (newest only) for its next launch.
        case pendingLaunch
        /// No content-available: nothing to wake.
        case notWoken
        /// This id was delivered before.
        case duplicate
    }

    /// Decides what to do with a push to `app` at `now` (size/JSON/target checks are done before).
    ///
    /// In this order: a delivered id is a `duplicate`; no `content-available` is `notWoken`;
    /// a force-quit app keeps it for its next launch; a free slot delivers it now (and drops an
    /// older coalesced push, which it supersedes); otherwise it is coalesced until the oldest
    /// wake of the hour expires.
    public mutating func admit(
        app: String, payload: String, id: String?, contentAvailable: Bool,
        isForceQuit: Bool, now: Instant, settings: PushSettings
    ) -> Admission {
        var state = apps[app] ?? AppPushes()
        defer { apps[app] = state }
        if let id, state.deliveredIDs.contains(id) { return .duplicate }
        guard contentAvailable else { return .notWoken }
        let pending = Pending(payload: payload, id: id)
        if isForceQuit {
            // The newest push is kept; one still coalesced from before the force-quit is older.
            state.pendingLaunch = pending
            state.coalesced = nil
            return .pendingLaunch
        }
        Self.expireWakes(&state, now: now)
        if state.wakes.count < Self.limit(settings) {
            state.coalesced = nil
            Self.recordDelivery(&state, pending, at: now)
            return .deliver
        }
        state.coalesced = pending
        return .coalesce(until: state.wakes[state.wakes.count - Self.limit(settings)] + Self.slotSpan)
    }

    /// When the app's pushSlot timer fires: the coalesced push to deliver now (taking a slot), if any
    /// and if a slot is free; otherwise nil (and `nextSlot` says when to try again).
    public mutating func takeCoalesced(app: String, now: Instant, settings: PushSettings) -> Pending? {
        guard var state = apps[app], let pending = state.coalesced else { return nil }
        defer { apps[app] = state }
        Self.expireWakes(&state, now: now)
        guard state.wakes.count < Self.limit(settings) else { return nil }
        state.coalesced = nil
        Self.recordDelivery(&state, pending, at: now)
        return pending
    }

    /// When the app's coalesced push can be delivered: `now` if a slot is free, otherwise the
    /// moment the oldest wake of the hour expires; nil when no push is coalesced.
    public func nextSlot(app: String, now: Instant, settings: PushSettings) -> Instant? {
        guard var state = apps[app], state.coalesced != nil else { return nil }
        Self.expireWakes(&state, now: now)
        let limit = Self.limit(settings)
        guard state.wakes.count >= limit else { return now }
        return state.wakes[state.wakes.count - limit] + Self.slotSpan
    }

    /// The push held until the app's next slot, if any.
    public func coalescedPush(app: String) -> Pending? {
        apps[app]?.coalesced
    }

    /// The push kept for the app's next launch, if any.
    public func pendingLaunchPush(app: String) -> Pending? {
        apps[app]?.pendingLaunch
    }

    /// How many wake slots the app has used in the hour before `now`.
    public func wakesInLastHour(app: String, now: Instant) -> Int {
        guard var state = apps[app] else { return 0 }
        Self.expireWakes(&state, now: now)
        return state.wakes.count
    }

    /// On launch after force-quit ends: the newest pending push kept for the launch, if any.
    ///
    /// Without a push kept for the launch, a push still coalesced and waiting for a slot is
    /// handed over instead (the launch wakes the app anyway; no slot is taken). Either way
    /// nothing is held afterwards, and the push counts as delivered: its id becomes a
    /// duplicate for later pushes.
    public mutating func takePendingForLaunch(app: String) -> Pending? {
        guard var state = apps[app], let pending = state.pendingLaunch ?? state.coalesced else { return nil }
        state.pendingLaunch = nil
        state.coalesced = nil
        if let id = pending.id { state.deliveredIDs.insert(id) }
        apps[app] = state
        return pending
    }

    /// Forgets the app's history (reset): wake slots are freed and coalesced or pending pushes
    /// dropped; delivered ids stay recorded (a reinstalled app still must not process the same
    /// notification twice) and tokens are left to `rotateToken(for:)`.
    public mutating func reset(app: String) {
        guard var state = apps[app] else { return }
        state.wakes = []
        state.coalesced = nil
        state.pendingLaunch = nil
        apps[app] = state
    }

    /// `max_per_hour`, at least 1 (a policy cannot set less; a zero would otherwise hold
    /// every push forever).
    private static func limit(_ settings: PushSettings) -> Int {
        max(1, settings.maxPerHour)
    }

    /// Drops wakes whose slot has expired at `now` (a wake at `t` frees its slot at `t + 1h`).
    private static func expireWakes(_ state: inout AppPushes, now: Instant) {
        let firstLive = state.wakes.firstIndex { $0 + slotSpan > now } ?? state.wakes.count
        if firstLive > 0 { state.wakes.removeFirst(firstLive) }
    }

    private static func recordDelivery(_ state: inout AppPushes, _ pending: Pending, at now: Instant) {
        state.wakes.append(now)
        if let id = pending.id { state.deliveredIDs.insert(id) }
    }
}
