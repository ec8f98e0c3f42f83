/// Rule 5 bookkeeping for all apps: device tokens, hourly wake slots, dedupe, coalescing.
///
/// - Tokens come from a `DeviceTokenSource`: 128 random bits in the daemon, `"tok-APP-N"` (N
///   counting 1, 2, 3… per app) by default, so that a replayed sequence of calls hands out the
///   same tokens. No token is handed out twice. A rotation (reinstall) makes every earlier
///   token of the app stale.
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
/// - A push whose wake memory cannot take now is held the same way (newest kept), without
///   taking a slot; the lifecycle tries it again every `memoryRetry`.
/// - A push without `content-available` wakes nothing and is not recorded.
public struct PushRouter: Sendable {
    /// The span in which `max_per_hour` wakes are counted.
    public static let slotSpan: Duration = .seconds(3600)
    /// How long a push held for memory waits before it is tried again.
    public static let memoryRetry: Duration = .seconds(60)

    private struct AppPushes: Sendable {
        /// How many tokens the app has been given.
        var tokenCount = 0
        /// The current token, if one was handed out since the last rotation.
        var currentToken: String?
        /// Times of the wakes that may still occupy a slot, oldest first.
        var wakes: [Instant] = []
        /// Ids delivered to the app.
        var deliveredIDs: Set<String> = []
        /// The push held until the next slot (or until memory allows its wake).
        var coalesced: Pending?
        /// The push held for the next launch after a force-quit.
        var pendingLaunch: Pending?

        /// The index of the first wake whose slot is still taken at `now` (a wake at `t`
        /// frees its slot at `t + 1h`); wakes are in time order.
        func firstLiveWake(at now: Instant) -> Int {
            wakes.firstIndex { $0 + PushRouter.slotSpan > now } ?? wakes.count
        }

        /// How many slots are taken at `now`.
        func slotsTaken(at now: Instant) -> Int {
            wakes.count - firstLiveWake(at: now)
        }

        /// When the slot count falls below `limit`: `now` if it already is.
        func nextFreeSlot(at now: Instant, limit: Int) -> Instant {
            let first = firstLiveWake(at: now)
            guard wakes.count - first >= limit else { return now }
            return wakes[wakes.count - limit] + PushRouter.slotSpan
        }

        /// Drops wakes whose slot has expired at `now`.
        mutating func expireWakes(at now: Instant) {
            let first = firstLiveWake(at: now)
            if first > 0 { wakes.removeFirst(first) }
        }

        /// Takes a slot at `now` and remembers the push's id as delivered.
        mutating func recordDelivery(_ pending: Pending, at now: Instant) {
            wakes.append(now)
            if let id = pending.id { deliveredIDs.insert(id) }
        }

        mutating func admit(
            _ pending: Pending, contentAvailable: Bool, isForceQuit: Bool, memoryHolds: Bool, now: Instant, limit: Int
        ) -> Admission {
            if let id = pending.id, deliveredIDs.contains(id) { return .duplicate }
            guard contentAvailable else { return .notWoken }
            if isForceQuit {
                // The newest push is kept; one still coalesced from before the force-quit is older.
                pendingLaunch = pending
                coalesced = nil
                return .pendingLaunch
            }
            if memoryHolds {
                // Held as a coalesced push is, without taking a slot: delivered at a later try.
                coalesced = pending
                return .holdForMemory
            }
            expireWakes(at: now)
            if wakes.count < limit {
                coalesced = nil
                recordDelivery(pending, at: now)
                return .deliver
            }
            coalesced = pending
            return .coalesce(until: nextFreeSlot(at: now, limit: limit))
        }

        mutating func takeCoalesced(now: Instant, limit: Int) -> Pending? {
            guard let pending = coalesced else { return nil }
            expireWakes(at: now)
            guard wakes.count < limit else { return nil }
            coalesced = nil
            recordDelivery(pending, at: now)
            return pending
        }

        mutating func takePendingForLaunch() -> Pending? {
            guard let pending = pendingLaunch ?? coalesced else { return nil }
            pendingLaunch = nil
            coalesced = nil
            if let id = pending.id { deliveredIDs.insert(id) }
            return pending
        }
    }

    private var apps: [String: AppPushes] = [:]
    /// Every token ever handed out, and its app.
    private var tokenOwners: [String: String] = [:]
    /// Where new tokens come from (not part of the state: a restored router gets its own).
    var tokenSource: DeviceTokenSource

    public init(tokenSource: DeviceTokenSource = .deterministic) {
        self.tokenSource = tokenSource
    }

    /// A copy of the router's bookkeeping that survives a restart: every app's tokens, wake
    /// slots, delivered ids and held pushes, and every token ever handed out.
    ///
    /// Wake times are milliseconds relative to an origin chosen by whoever takes the copy
    /// (`state(relativeTo:)`), so that they can be moved onto a new clock.
    public struct State: Codable, Sendable, Equatable {
        /// One app's bookkeeping.
        public struct App: Codable, Sendable, Equatable {
            public var tokenCount: Int
            public var currentToken: String?
            /// The wakes that may still occupy a slot, oldest first, relative to the origin.
            public var wakeMillis: [Int64]
            public var deliveredIDs: [String]
            public var coalesced: Pending?
            public var pendingLaunch: Pending?
        }

        public var apps: [String: App]
        /// Every token ever handed out, and its app.
        public var tokenOwners: [String: String]
    }

    /// The bookkeeping, with wake times relative to `origin`.
    public func state(relativeTo origin: Instant) -> State {
        State(
            apps: apps.mapValues { app in
                State.App(
                    tokenCount: app.tokenCount, currentToken: app.currentToken,
                    wakeMillis: app.wakes.map { ($0 - origin).milliseconds },
                    deliveredIDs: app.deliveredIDs.sorted(),
                    coalesced: app.coalesced, pendingLaunch: app.pendingLaunch)
            }, tokenOwners: tokenOwners)
    }

    /// The bookkeeping, with wake times relative to the clock's origin.
    public var state: State { state(relativeTo: .zero) }

    /// A router that continues from `state`, whose origin is `origin` on the new clock.
    public init(state: State, relativeTo origin: Instant = .zero, tokenSource: DeviceTokenSource = .deterministic) {
        self.tokenSource = tokenSource
        apps = state.apps.mapValues { app in
            AppPushes(
                tokenCount: app.tokenCount, currentToken: app.currentToken,
                wakes: app.wakeMillis.sorted().map { origin + .milliseconds($0) }, deliveredIDs: Set(app.deliveredIDs),
                coalesced: app.coalesced, pendingLaunch: app.pendingLaunch)
        }
        tokenOwners = state.tokenOwners
    }

    /// The app's current device token, created on first use from the token source; unique per
    /// install.
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
        var token = tokenSource.make(app, state.tokenCount)
        // A token handed out before (to any app, or stale) is never handed out again.
        var attempt = 0
        while tokenOwners[token] != nil || token.isEmpty {
            attempt += 1
            token = tokenSource.make(app, state.tokenCount) + (attempt > 3 ? "-\(attempt)" : "")
        }
        state.currentToken = token
        apps[app] = state
        tokenOwners[token] = app
        return token
    }

    /// The app's current token, if it has been given one since its last rotation.
    public func currentToken(for app: String) -> String? {
        apps[app]?.currentToken
    }

    /// Makes `token` the app's current token, as a previous router had handed it out; the app's
    /// earlier token becomes stale. A token already known is left as it is.
    public mutating func adoptToken(_ token: String, for app: String) {
        guard tokenOwners[token] == nil, !token.isEmpty else { return }
        var state = apps[app] ?? AppPushes()
        state.tokenCount += 1
        state.currentToken = token
        apps[app] = state
        tokenOwners[token] = app
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

    public struct Pending: Codable, Sendable, Equatable {
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
        /// Memory cannot take the wake now: held as the app's newest pending push, without
        /// taking a slot, and tried again after `memoryRetry`.
        case holdForMemory
        /// No content-available: nothing to wake.
        case notWoken
        /// This id was delivered before.
        case duplicate
    }

    /// Decides what to do with a push to `app` at `now` (size/JSON/target checks are done before).
    ///
    /// In this order: a delivered id is a `duplicate`; no `content-available` is `notWoken`;
    /// a force-quit app keeps it for its next launch; a wake that memory cannot take now
    /// (`memoryHolds`, rule 5 as rule 4) is held, newest kept, without taking a slot; a free slot
    /// delivers it now (and drops an older coalesced push, which it supersedes); otherwise it is
    /// coalesced until the oldest wake of the hour expires.
    public mutating func admit(
        app: String, payload: String, id: String?, contentAvailable: Bool,
        isForceQuit: Bool, memoryHolds: Bool = false, now: Instant, settings: PushSettings
    ) -> Admission {
        if !contentAvailable, id == nil { return .notWoken }
        return apps[app, default: AppPushes()].admit(
            Pending(payload: payload, id: id), contentAvailable: contentAvailable, isForceQuit: isForceQuit,
            memoryHolds: memoryHolds, now: now, limit: Self.limit(settings))
    }

    /// When the app's pushSlot timer fires: the coalesced push to deliver now (taking a slot), if any
    /// and if a slot is free; otherwise nil (and `nextSlot` says when to try again).
    public mutating func takeCoalesced(app: String, now: Instant, settings: PushSettings) -> Pending? {
        guard apps[app]?.coalesced != nil else { return nil }
        return apps[app]?.takeCoalesced(now: now, limit: Self.limit(settings))
    }

    /// When the app's coalesced push can be delivered: `now` if a slot is free, otherwise the
    /// moment the oldest wake of the hour expires; nil when no push is coalesced.
    public func nextSlot(app: String, now: Instant, settings: PushSettings) -> Instant? {
        guard let state = apps[app], state.coalesced != nil else { return nil }
        return state.nextFreeSlot(at: now, limit: Self.limit(settings))
    }

    /// The push held until the app's next slot or until memory allows its wake, if any.
    public func coalescedPush(app: String) -> Pending? {
        apps[app]?.coalesced
    }

    /// The push kept for the app's next launch, if any.
    public func pendingLaunchPush(app: String) -> Pending? {
        apps[app]?.pendingLaunch
    }

    /// Takes one of the app's wake slots of the hour for a wake that is not a push (an
    /// accessory's, rule 14, under the push's `max_per_hour`): nil when one was free and is
    /// now taken, else when the next one frees up. Such a wake is never coalesced.
    public mutating func takeWakeSlot(app: String, now: Instant, settings: PushSettings) -> Instant? {
        var state = apps[app] ?? AppPushes()
        state.expireWakes(at: now)
        let limit = Self.limit(settings)
        guard state.wakes.count < limit else {
            apps[app] = state
            return state.nextFreeSlot(at: now, limit: limit)
        }
        state.wakes.append(now)
        apps[app] = state
        return nil
    }

    /// How many wake slots the app has used in the hour before `now`.
    public func wakesInLastHour(app: String, now: Instant) -> Int {
        apps[app]?.slotsTaken(at: now) ?? 0
    }

    /// On launch after force-quit ends: the newest pending push kept for the launch, if any.
    ///
    /// Without a push kept for the launch, a push still coalesced and waiting for a slot is
    /// handed over instead (the launch wakes the app anyway; no slot is taken). Either way
    /// nothing is held afterwards, and the push counts as delivered: its id becomes a
    /// duplicate for later pushes.
    public mutating func takePendingForLaunch(app: String) -> Pending? {
        apps[app]?.takePendingForLaunch()
    }

    /// Forgets the app's history (reset): wake slots are freed and coalesced or pending pushes
    /// dropped; delivered ids stay recorded (a reinstalled app still must not process the same
    /// notification twice) and tokens are left to `rotateToken(for:)`.
    public mutating func reset(app: String) {
        guard apps[app] != nil else { return }
        apps[app]?.wakes = []
        apps[app]?.coalesced = nil
        apps[app]?.pendingLaunch = nil
    }

    /// `max_per_hour`, at least 1 (a policy cannot set less; a zero would otherwise hold
    /// every push forever).
    private static func limit(_ settings: PushSettings) -> Int {
        max(1, settings.maxPerHour)
    }
}
