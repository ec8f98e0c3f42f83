/// Rule 4: adaptive fetch scheduling and coalescing of wakes for all apps.
///
/// **Adaptive interval.** Each app carries a stretch factor, 1× at first, applied to its
/// requested interval (`minimum` stands for `fetch.minimum_interval`):
/// - a fetch that ends `newData` divides the factor by 1.5;
/// - a fetch that ends `noData` or `failed` multiplies it by 1.5;
/// - a fetch window that times out doubles it;
/// - each time the user opens the app the factor is multiplied by 0.8.
///
/// The factor never goes below 1× (an app is never woken more often than it asked) nor above
/// 32×, and the resulting interval never exceeds `fetch.maximum_interval` (unless the
/// requested interval itself is longer). An app that always reports `newData` is therefore
/// woken exactly at its requested interval.
///
/// **When.** The next wake is due one effective interval after the last wake that came due
/// (whether the app fetched then or the wake was forfeited); an app that has not been woken
/// yet counts from the moment its wake was first planned (since its fetches were last turned
/// on). A wake is never planned in the past.
///
/// **Coalescing.** Wakes that fall due within `fetch.coalesce` of each other are batched at
/// one instant, and no wake ever moves earlier than it is due nor later than `coalesce` after
/// it is due. A newly planned wake joins the earliest batch that lies between its due time
/// and `coalesce` after it. Failing that, of the batches (still in the future) that lie less
/// than `coalesce` before its due time and whose every member can wait until then, the latest
/// moves later to that due time. Otherwise the wake starts a batch of its own. Apps whose
/// wake moved are listed in name order, before the app being planned.
public struct FetchScheduler: Sendable {
    /// The factor's bounds, in thousandths.
    static let unitStretch: Int64 = 1000
    static let maximumStretch: Int64 = 32_000

    private struct AppFetch: Sendable {
        /// The adaptive stretch factor, in thousandths (1000 = 1×).
        var stretch: Int64 = FetchScheduler.unitStretch
        /// The last wake that came due (fetched or forfeited): the next interval counts from it.
        var lastWake: Instant?
        /// When planning began, for an app that has not been woken yet; forgotten when its
        /// fetches are turned off.
        var planStart: Instant?
        /// When the next wake is due, before coalescing.
        var due: Instant?
        /// The planned (possibly coalesced) wake.
        var wake: Instant?
    }

    /// Per-app state, in the order apps were first seen; `slots` maps a name to its index.
    private var states: [AppFetch] = []
    private var names: [String] = []
    private var slots: [String: Int] = [:]

    public init() {}

    /// The user opened the app (apps opened often get more opportunities).
    public mutating func recordOpen(app: String, at now: Instant) {
        let slot = slot(for: app)
        states[slot].stretch = max(Self.unitStretch, states[slot].stretch * 4 / 5)
    }

    /// A fetch window ended: its result, or nil for a timeout.
    ///
    /// The wake that opened the window (the planned wake, if it has come due) becomes the point
    /// the next interval counts from. The caller plans the next wake with `plan`.
    public mutating func recordFetch(app: String, result: CompletionResult?, at now: Instant) {
        let slot = slot(for: app)
        var state = states[slot]
        Self.consumeDueWake(&state, now: now)
        if state.lastWake == nil { state.lastWake = now }
        switch result {
        case .newData: state.stretch = state.stretch * 2 / 3
        case .noData, .failed: state.stretch = state.stretch * 3 / 2
        case nil: state.stretch *= 2
        }
        state.stretch = min(Self.maximumStretch, max(Self.unitStretch, state.stretch))
        states[slot] = state
    }

    /// The app's stretch factor (1.0 = its requested interval), for `status` and `explain`.
    public func stretchFactor(app: String) -> Double {
        Double(state(of: app)?.stretch ?? Self.unitStretch) / Double(Self.unitStretch)
    }

    /// The app's fetch interval now: `requested` (minimum -> settings.minimumInterval) stretched or
    /// shrunk by the app's usage and results, never below the requested interval, never above
    /// settings.maximumInterval; nil for `never`.
    public func effectiveInterval(app: String, requested: FetchInterval, settings: FetchSettings) -> Duration? {
        let base: Duration
        switch requested {
        case .never: return nil
        case .minimum: base = settings.minimumInterval
        case .every(let interval): base = interval
        }
        let stretch = state(of: app)?.stretch ?? Self.unitStretch
        if stretch == Self.unitStretch { return base }
        let ceiling = max(base, settings.maximumInterval)
        let millis = base.milliseconds
        let (product, overflow) = millis.multipliedReportingOverflow(by: stretch)
        if overflow { return ceiling }
        return min(.milliseconds(product / Self.unitStretch), ceiling)
    }

    /// Plans the app's next wake: no earlier than its effective interval after its last fetch (or after
    /// `now` if it never fetched), joined with other apps' planned wakes that fall within
    /// settings.coalesce (wakes may move later, never earlier than due). Returns every app whose planned
    /// wake changed, with its new time (the caller re-arms their fetchWake timers). nil interval (never,
    /// background_refresh off, no fetch mode) removes the app's planned wake.
    ///
    /// A planned wake that has come due (at or before `now`) counts as taken: the next interval
    /// counts from it. Planning again with nothing changed returns an empty list.
    public mutating func plan(
        app: String, requested: FetchInterval, enabled: Bool, settings: FetchSettings,
        now: Instant
    ) -> [(app: String, wake: Instant?)] {
        let slot = slot(for: app)
        var state = states[slot]
        Self.consumeDueWake(&state, now: now)
        let previous = state.wake
        state.wake = nil
        state.due = nil
        guard enabled, let interval = effectiveInterval(app: app, requested: requested, settings: settings) else {
            state.planStart = nil
            states[slot] = state
            return previous == nil ? [] : [(app, nil)]
        }
        if state.lastWake == nil && state.planStart == nil { state.planStart = now }
        let anchor = state.lastWake ?? state.planStart ?? now
        let due = max(anchor + interval, now)
        state.due = due
        states[slot] = state

        var changes: [(app: String, wake: Instant?)] = []
        let wake = coalescedWake(for: slot, due: due, now: now, coalesce: settings.coalesce, changes: &changes)
        states[slot].wake = wake
        if wake != previous { changes.append((app, wake)) }
        return changes
    }

    /// Chooses the wake instant for the app in `slot`, due at `due`, moving an earlier batch later when that
    /// is the way to join one (its members are appended to `changes`).
    private mutating func coalescedWake(
        for slot: Int, due: Instant, now: Instant, coalesce: Duration,
        changes: inout [(app: String, wake: Instant?)]
    ) -> Instant {
        guard coalesce > .zero else { return due }
        let latest = due + coalesce
        let earliest = due - coalesce
        // 1. Join the earliest batch in [due, due + coalesce].
        var join: Instant?
        var hasEarlier = false
        for index in states.indices where index != slot {
            guard let wake = states[index].wake else { continue }
            if wake >= due {
                if wake <= latest && (join == nil || wake < join!) { join = wake }
            } else if wake > now && wake >= earliest {
                hasEarlier = true
            }
        }
        if let join { return join }
        guard hasEarlier else { return due }
        // 2. Pull the latest future batch in [due - coalesce, due) whose members can all wait
        //    until `due`, later to `due`.
        var limits: [Instant: Instant] = [:]
        for index in states.indices where index != slot {
            guard let wake = states[index].wake, let otherDue = states[index].due, wake > now, wake < due,
                wake >= earliest
            else { continue }
            let limit = otherDue + coalesce
            limits[wake] = min(limits[wake] ?? limit, limit)
        }
        guard let batch = limits.filter({ $0.value >= due }).keys.max() else { return due }
        var members: [Int] = []
        for (index, other) in states.enumerated() where index != slot && other.wake == batch { members.append(index) }
        for index in members.sorted(by: { names[$0] < names[$1] }) {
            states[index].wake = due
            changes.append((names[index], due))
        }
        return due
    }

    /// A copy of the scheduler's plans that survives a restart: every app's stretch factor, the
    /// wake its next interval counts from, and its planned wake.
    ///
    /// Times are milliseconds relative to an origin chosen by whoever takes the copy
    /// (`state(relativeTo:)`), so that they can be moved onto a new clock.
    public struct State: Codable, Sendable, Equatable {
        /// One app's plan.
        public struct App: Codable, Sendable, Equatable {
            public var name: String
            /// The stretch factor in thousandths (1000 = 1×).
            public var stretch: Int64
            public var lastWakeMillis: Int64?
            public var planStartMillis: Int64?
            public var dueMillis: Int64?
            public var wakeMillis: Int64?
        }

        /// Every app the scheduler has seen, in the order it first saw them.
        public var apps: [App]
    }

    /// The plans, with times relative to `origin`.
    public func state(relativeTo origin: Instant) -> State {
        func relative(_ instant: Instant?) -> Int64? {
            instant.map { ($0 - origin).milliseconds }
        }
        return State(
            apps: zip(names, states).map { name, state in
                State.App(
                    name: name, stretch: state.stretch, lastWakeMillis: relative(state.lastWake),
                    planStartMillis: relative(state.planStart), dueMillis: relative(state.due),
                    wakeMillis: relative(state.wake))
            })
    }

    /// A scheduler that continues from `state`, whose origin is `origin` on the new clock: every
    /// planned wake keeps its absolute time (one that fell due meanwhile is due at once).
    public init(state: State, relativeTo origin: Instant) {
        func instant(_ millis: Int64?) -> Instant? {
            millis.map { origin + .milliseconds($0) }
        }
        for app in state.apps where slots[app.name] == nil {
            let stretch = min(Self.maximumStretch, max(Self.unitStretch, app.stretch))
            states.append(
                AppFetch(
                    stretch: stretch, lastWake: instant(app.lastWakeMillis), planStart: instant(app.planStartMillis),
                    due: instant(app.dueMillis), wake: instant(app.wakeMillis)))
            names.append(app.name)
            slots[app.name] = states.count - 1
        }
    }

    /// The planned wake of an app, if any.
    public func plannedWake(app: String) -> Instant? {
        state(of: app)?.wake
    }

    /// Forgets the app's fetch history and planned wake (reset).
    public mutating func reset(app: String) {
        if let slot = slots[app] { states[slot] = AppFetch() }
    }

    private func state(of app: String) -> AppFetch? {
        slots[app].map { states[$0] }
    }

    /// The app's index in `states`, added on first use.
    private mutating func slot(for app: String) -> Int {
        if let slot = slots[app] { return slot }
        states.append(AppFetch())
        names.append(app)
        slots[app] = states.count - 1
        return states.count - 1
    }

    /// A planned wake at or before `now` has come due: the next interval counts from it.
    private static func consumeDueWake(_ state: inout AppFetch, now: Instant) {
        if let wake = state.wake, wake <= now {
            state.lastWake = wake
            state.wake = nil
            state.due = nil
        }
    }
}
