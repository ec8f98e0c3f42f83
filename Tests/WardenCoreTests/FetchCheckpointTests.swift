import Foundation
import Testing
import WardenCore

/// Fetch plans carried across a restart by the core's checkpoint.
@Suite struct FetchCheckpointTests {
    private static let news = LifecycleFetchTests.fetcher("news", every: .seconds(900))

    /// The checkpoint of `harness` at `seconds`, encoded and decoded as the runtime stores it.
    private static func checkpoint(of harness: Harness, at seconds: Double) throws -> LifecycleCheckpoint {
        let json = try JSONEncoder().encode(harness.core.checkpoint(at: Harness.seconds(seconds)))
        return try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
    }

    /// A core restored from a checkpoint keeps the planned fetch wake at its absolute time
    /// instead of planning it again from the restore, and an event after the restore does not
    /// push it back.
    @Test func aRestoredCoreKeepsThePlannedFetchWake() throws {
        let policy = Policy(apps: [Self.news])
        var harness = Harness(policy)
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        #expect(harness.deadline("news", .fetchWake) == Harness.seconds(900))

        let checkpoint = try Self.checkpoint(of: harness, at: 300)
        // The new daemon starts 200 s after the checkpoint, on a clock whose origin is its start.
        let then = Instant(sinceOrigin: .seconds(-200))
        var restored = Harness(policy)
        restored.core = Lifecycle(policy: policy, checkpoint: checkpoint, at: then)
        let wake = try #require(restored.core.armedTimers().first { $0.timer.kind == .fetchWake })
        #expect(wake.deadline == then + .seconds(600))
        let first = try restored.send(.footprint(app: "news", bytes: 0), at: 1)
        #expect(!first.contains { if case .armTimer(_, _) = $0 { true } else { false } })
        #expect(restored.deadline("news", .fetchWake) == Instant(sinceOrigin: .seconds(400)))
    }

    /// A fetch wake that fell due while nothing ran fires at once after the restore, and the
    /// next wake counts from the one that came due.
    @Test func aFetchWakeThatFellDueWhileStoppedFiresAtOnce() throws {
        let policy = Policy(apps: [Self.news])
        var harness = Harness(policy)
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        let checkpoint = try Self.checkpoint(of: harness, at: 800)

        // 200 s pass before the restore: the wake (at 900 s) fell due 100 s before it.
        let then = Instant(sinceOrigin: .seconds(-200))
        var restored = Harness(policy)
        restored.core = Lifecycle(policy: policy, checkpoint: checkpoint, at: then)
        restored.advance(to: 0)
        #expect(restored.actions.contains(.spawn(app: "news", launch: 1, reason: .fetch, restore: false)))
        #expect(restored.state("news") == .background)
        try restored.send(.completeFetch(app: "news", result: .newData), at: 1)
        #expect(restored.deadline("news", .fetchWake) == Instant(sinceOrigin: .seconds(800)))
    }

    /// The scheduler's state survives encoding with its stretch factor and planned wake.
    @Test func aSchedulerRebuiltFromItsStateKeepsStretchAndWake() throws {
        var scheduler = FetchScheduler()
        let settings = FetchSettings()
        _ = scheduler.plan(
            app: "news", requested: .every(.seconds(900)), enabled: true, settings: settings, now: .zero)
        scheduler.recordFetch(app: "news", result: .noData, at: Instant(sinceOrigin: .seconds(900)))
        _ = scheduler.plan(
            app: "news", requested: .every(.seconds(900)), enabled: true, settings: settings,
            now: Instant(sinceOrigin: .seconds(905)))
        let origin = Instant(sinceOrigin: .seconds(1000))
        let json = try JSONEncoder().encode(scheduler.state(relativeTo: origin))
        let state = try JSONDecoder().decode(FetchScheduler.State.self, from: json)
        let restored = FetchScheduler(state: state, relativeTo: origin + .seconds(50))
        #expect(restored.stretchFactor(app: "news") == scheduler.stretchFactor(app: "news"))
        #expect(restored.plannedWake(app: "news") == scheduler.plannedWake(app: "news").map { $0 + .seconds(50) })
        #expect(restored.stretchFactor(app: "news") > 1)
    }
}
