import Testing
import WardenCore

/// `take(_:at:)`: one call per event gives the runtime the actions and what the journal keeps.
@Suite struct HandledEventTests {
    static let mib: Int64 = 1 << 20

    /// The journal keeps the killer's candidates, as they were before the event, for a memory
    /// sample that decides something and for a pressure report other than normal; for a
    /// sample that decides nothing, and for other events, none.
    @Test func theCandidatesComeWithTheEventsThatMayKill() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")]))
        try harness.send(.open(app: "maps"), at: 1)
        try harness.send(.open(app: "mail"), at: 2)
        try harness.send(.memorySample(available: 900 * Self.mib, total: 1024 * Self.mib), at: 3)
        harness.advance(to: 60)
        #expect(harness.state("maps") == .suspended)
        func candidates(before event: LifecycleEvent) throws -> Set<String> {
            var core = harness.core
            return Set(try core.take(event, at: harness.now).candidates.map(\.app))
        }
        #expect(try candidates(before: .memorySample(available: 800 * Self.mib, total: 1024 * Self.mib)).isEmpty)
        #expect(
            try candidates(before: .memorySample(available: 10 * Self.mib, total: 1024 * Self.mib)) == ["mail", "maps"])
        #expect(try candidates(before: .pressure(.normal)).isEmpty)
        #expect(try candidates(before: .pressure(.critical)) == ["mail", "maps"])
        #expect(try candidates(before: .open(app: "maps")).isEmpty)
    }

    /// `take` returns what `handle` returns, and says whether the event ended the app's process
    /// on its own as the core saw it before: a crash of the running launch is the app's own end,
    /// the same end after the core asked for a termination is not.
    @Test func takeSaysWhetherAnEndWasTheAppsOwn() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 1)
        let launch = try #require(harness.launches["mail"])
        let crash = LifecycleEvent.processExited(app: "mail", launch: launch, end: .crashed(description: "SIGSEGV"))
        var taken = harness.core
        var handled = harness.core
        let own = try taken.take(crash, at: harness.now)
        let actions = try handled.handle(crash, at: harness.now)
        #expect(own.endsOnItsOwn)
        #expect(!actions.isEmpty && own.actions == actions)
        #expect(taken.state(of: "mail") == .notRunning)
        #expect(own.replayable == crash)
        var quitting = harness.core
        _ = try quitting.take(.forceQuit(app: "mail"), at: harness.now)
        let afterQuit = try quitting.take(crash, at: harness.now)
        #expect(!afterQuit.endsOnItsOwn)
    }

    /// A push to a device token is journaled as a push to the app that owns it: the token is
    /// the daemon's own random number, which a replay does not have.
    @Test func aPushToATokenIsReplayableAsAPushToItsApp() throws {
        let wake = #"{"aps":{"content-available":1}}"#
        var core = Lifecycle(policy: Policy(apps: [AppPolicy(name: "chat", backgroundModes: [.remoteNotification])]))
        _ = try core.take(.registerPush(app: "chat"), at: Instant(sinceOrigin: .seconds(1)))
        let token = try #require(core.deviceToken(of: "chat"))
        let push = try core.take(
            .push(target: .token(token), payload: wake, id: nil), at: Instant(sinceOrigin: .seconds(2)))
        #expect(push.replayable == .push(target: .app("chat"), payload: wake, id: nil))
        #expect(!push.actions.isEmpty)
    }
}
