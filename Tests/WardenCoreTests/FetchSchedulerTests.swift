import Testing
import WardenCore

private func at(_ seconds: Int64) -> Instant {
    Instant(sinceOrigin: .seconds(seconds))
}

/// Changes as "APP@TIME" (or "APP@none") for comparison.
private func describe(_ changes: [(app: String, wake: Instant?)]) -> [String] {
    changes.map { "\($0.app)@\($0.wake.map(\.description) ?? "none")" }
}

@Suite struct FetchSchedulerTests {
    private let settings = FetchSettings()
    private let fifteen = FetchInterval.minimum

    private func interval(_ scheduler: FetchScheduler, _ requested: FetchInterval = .minimum) -> Duration? {
        scheduler.effectiveInterval(app: "mail", requested: requested, settings: settings)
    }

    private func plan(
        _ scheduler: inout FetchScheduler, _ app: String, every seconds: Int64, at now: Int64,
        settings: FetchSettings? = nil
    ) -> [String] {
        describe(
            scheduler.plan(
                app: app, requested: .every(.seconds(seconds)), enabled: true, settings: settings ?? self.settings,
                now: at(now)))
    }

    /// `never` has no interval, `minimum` is the minimum interval, a duration is itself.
    @Test func requestedIntervalsResolve() {
        let scheduler = FetchScheduler()
        #expect(interval(scheduler, .never) == nil)
        #expect(interval(scheduler, .minimum) == .seconds(900))
        #expect(interval(scheduler, .every(.seconds(120))) == .seconds(120))
    }

    /// noData and failed stretch the interval by 1.5 each; newData shrinks it back, never below the request.
    @Test func resultsStretchAndShrinkTheInterval() {
        var scheduler = FetchScheduler()
        scheduler.recordFetch(app: "mail", result: .noData, at: at(0))
        #expect(interval(scheduler) == .seconds(1350))
        scheduler.recordFetch(app: "mail", result: .noData, at: at(0))
        #expect(interval(scheduler) == .seconds(2025))
        scheduler.recordFetch(app: "mail", result: .failed, at: at(0))
        #expect(interval(scheduler) == .milliseconds(3_037_500))
        scheduler.recordFetch(app: "mail", result: .newData, at: at(0))
        #expect(interval(scheduler) == .seconds(2025))
        scheduler.recordFetch(app: "mail", result: .newData, at: at(0))
        #expect(interval(scheduler) == .seconds(1350))
        scheduler.recordFetch(app: "mail", result: .newData, at: at(0))
        #expect(interval(scheduler) == .seconds(900))
        scheduler.recordFetch(app: "mail", result: .newData, at: at(0))
        #expect(interval(scheduler) == .seconds(900))
        #expect(scheduler.stretchFactor(app: "mail") == 1)
    }

    /// A timeout doubles the interval; opening the app shrinks it by a fifth, down to the request.
    @Test func timeoutsStretchAndOpensShrink() {
        var scheduler = FetchScheduler()
        scheduler.recordFetch(app: "mail", result: nil, at: at(0))
        #expect(interval(scheduler) == .seconds(1800))
        scheduler.recordOpen(app: "mail", at: at(1))
        #expect(interval(scheduler) == .seconds(1440))
        scheduler.recordOpen(app: "mail", at: at(2))
        #expect(interval(scheduler) == .seconds(1152))
        for second: Int64 in 3..<10 { scheduler.recordOpen(app: "mail", at: at(second)) }
        #expect(interval(scheduler) == .seconds(900))
        // Another app is not affected by mail's history.
        #expect(scheduler.effectiveInterval(app: "maps", requested: .minimum, settings: settings) == .seconds(900))
    }

    /// The stretched interval stops at maximum_interval, unless the request itself is longer.
    @Test func stretchingStopsAtTheMaximumInterval() {
        var scheduler = FetchScheduler()
        let settings = FetchSettings(maximumInterval: .seconds(3600))
        for _ in 0..<10 { scheduler.recordFetch(app: "mail", result: nil, at: at(0)) }
        #expect(scheduler.effectiveInterval(app: "mail", requested: .minimum, settings: settings) == .seconds(3600))
        #expect(
            scheduler.effectiveInterval(app: "mail", requested: .every(.seconds(7200)), settings: settings)
                == .seconds(7200))
        #expect(scheduler.stretchFactor(app: "mail") == 32)
    }

    /// The first wake is one interval after planning began; planning again later does not push it back.
    @Test func firstWakeCountsFromWhenPlanningBegan() {
        var scheduler = FetchScheduler()
        #expect(plan(&scheduler, "mail", every: 600, at: 0) == ["mail@10m"])
        #expect(plan(&scheduler, "mail", every: 600, at: 300) == [])
        #expect(scheduler.plannedWake(app: "mail") == at(600))
        #expect(plan(&scheduler, "mail", every: 900, at: 300) == ["mail@15m"])
    }

    /// The next wake counts from the wake that opened the last fetch, not from its completion.
    @Test func nextWakeCountsFromTheLastFetch() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 600, at: 0)
        scheduler.recordFetch(app: "mail", result: .newData, at: at(602))
        #expect(plan(&scheduler, "mail", every: 600, at: 602) == ["mail@20m"])
        scheduler.recordFetch(app: "mail", result: nil, at: at(1230))
        #expect(plan(&scheduler, "mail", every: 600, at: 1230) == ["mail@40m"])
    }

    /// An app that never fetched counts from when its fetches were turned on again, not from
    /// when they were first planned.
    @Test func reEnablingCountsFromNowForAnAppThatNeverFetched() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 900, at: 0)
        _ = scheduler.plan(app: "mail", requested: .never, enabled: true, settings: settings, now: at(300))
        #expect(plan(&scheduler, "mail", every: 900, at: 3600) == ["mail@1h15m"])
        // After a fetch, turning fetches off and on again still counts from that fetch.
        scheduler.recordFetch(app: "mail", result: .newData, at: at(4502))
        _ = scheduler.plan(app: "mail", requested: .never, enabled: true, settings: settings, now: at(4600))
        #expect(plan(&scheduler, "mail", every: 900, at: 4700) == ["mail@1h30m"])
    }

    /// A planned wake that has come due counts as taken even if the app did not fetch.
    @Test func aWakeThatCameDueIsTaken() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 600, at: 0)
        #expect(plan(&scheduler, "mail", every: 600, at: 600) == ["mail@20m"])
    }

    /// A wake overdue by a long gap is planned now, never in the past.
    @Test func overdueWakesArePlannedNow() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 600, at: 0)
        scheduler.recordFetch(app: "mail", result: .newData, at: at(601))
        #expect(plan(&scheduler, "mail", every: 600, at: 3600) == ["mail@1h"])
    }

    /// Disabling removes the planned wake once.
    @Test func disablingRemovesThePlannedWake() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 600, at: 0)
        let off = scheduler.plan(
            app: "mail", requested: .every(.seconds(600)), enabled: false, settings: settings, now: at(1))
        #expect(describe(off) == ["mail@none"])
        #expect(scheduler.plannedWake(app: "mail") == nil)
        let never = scheduler.plan(app: "mail", requested: .never, enabled: true, settings: settings, now: at(2))
        #expect(never.isEmpty)
    }

    /// A wake due shortly before another joins it later, by less than the coalescing span.
    @Test func aWakeJoinsALaterWakeWithinTheSpan() {
        var scheduler = FetchScheduler()
        #expect(plan(&scheduler, "news", every: 630, at: 0) == ["news@10m30s"])
        #expect(plan(&scheduler, "mail", every: 600, at: 0) == ["mail@10m30s"])
        #expect(scheduler.plannedWake(app: "news") == at(630))
    }

    /// An earlier planned wake within the span moves later to join a new one.
    @Test func anEarlierWakeMovesLaterToJoin() {
        var scheduler = FetchScheduler()
        #expect(plan(&scheduler, "mail", every: 600, at: 0) == ["mail@10m"])
        #expect(plan(&scheduler, "news", every: 630, at: 0) == ["mail@10m30s", "news@10m30s"])
        #expect(scheduler.plannedWake(app: "mail") == at(630))
        // Planning a batch member again changes nothing.
        #expect(plan(&scheduler, "news", every: 630, at: 10) == [])
    }

    /// Wakes further apart than the span stay apart, and a batch moves only if every member can wait.
    @Test func batchesNeverDelayAWakeBeyondTheSpan() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 600, at: 0)
        #expect(plan(&scheduler, "maps", every: 800, at: 0) == ["maps@13m20s"])
        #expect(plan(&scheduler, "news", every: 650, at: 0) == ["mail@10m50s", "news@10m50s"])
        // The batch at 650 s cannot move to 690 s: mail may wait only until 660 s.
        #expect(plan(&scheduler, "chat", every: 690, at: 0) == ["chat@11m30s"])
        #expect(scheduler.plannedWake(app: "mail") == at(650))
        #expect(scheduler.plannedWake(app: "maps") == at(800))
        // A wake due within the span before maps joins it.
        #expect(plan(&scheduler, "feed", every: 760, at: 0) == ["feed@13m20s"])
    }

    /// With a zero coalescing span every wake stays at its due time.
    @Test func aZeroSpanDisablesCoalescing() {
        var scheduler = FetchScheduler()
        let settings = FetchSettings(coalesce: .zero)
        _ = plan(&scheduler, "mail", every: 600, at: 0, settings: settings)
        #expect(plan(&scheduler, "news", every: 601, at: 0, settings: settings) == ["news@10m1s"])
    }

    /// Reset forgets the app's history: a fresh factor and a wake one interval after the next plan.
    @Test func resetForgetsHistory() {
        var scheduler = FetchScheduler()
        _ = plan(&scheduler, "mail", every: 600, at: 0)
        scheduler.recordFetch(app: "mail", result: nil, at: at(630))
        scheduler.reset(app: "mail")
        #expect(scheduler.plannedWake(app: "mail") == nil)
        #expect(scheduler.stretchFactor(app: "mail") == 1)
        #expect(plan(&scheduler, "mail", every: 600, at: 3600) == ["mail@1h10m"])
    }
}
