import Testing
import WardenCore

@Suite struct LifecycleTerminationTests {
    static let mail = Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")])

    /// force-quit sends SIGTERM, publishes terminating, deletes the preserved state; the exit ends it.
    @Test func forceQuitTerminatesGracefully() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        let out = try harness.send(.forceQuit(app: "mail"), at: 1)
        #expect(out.contains(.terminate(app: "mail", reason: .userForceQuit)))
        #expect(!out.contains(.kill(app: "mail", reason: .userForceQuit)))
        #expect(out.contains(.deleteRestorationState(app: "mail")))
        #expect(harness.statuses == ["mail foreground", "mail terminating"])
        #expect(harness.state("mail") == .notRunning)
    }

    /// A process that ignores SIGTERM is killed when the termination grace ends.
    @Test func stubbornProcessIsKilledAfterTheTerminationGrace() throws {
        var harness = Harness(Self.mail, stubborn: ["mail"])
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.forceQuit(app: "mail"), at: 1)
        #expect(harness.state("mail") == .active)
        #expect(throws: LifecycleError.self) { try harness.send(.open(app: "mail"), at: 2) }
        harness.advance(to: 6)
        #expect(
            harness.actions.last { if case .kill = $0 { true } else { false } }
                == .kill(app: "mail", reason: .userForceQuit))
        #expect(harness.state("mail") == .notRunning)
    }

    /// After a system termination the preserved state is kept and the next launch restores.
    @Test func systemTerminationKeepsStateForTheNextLaunch() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.open(app: "maps"), at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.critical), at: 10)
        #expect(harness.terminations == ["mail memoryPressure"])
        let out = try harness.send(.open(app: "mail"), at: 20)
        #expect(out.contains(.spawn(app: "mail", launch: 2, reason: .user, restore: true)))
        #expect(harness.core.snapshot(of: "mail", at: seconds(20))?.hasPreservedState == true)
    }

    /// force-quit deletes the preserved state: the next launch does not restore.
    @Test func forceQuitDeletesPreservedState() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 1)
        try harness.send(.forceQuit(app: "mail"), at: 2)
        let out = try harness.send(.open(app: "mail"), at: 3)
        #expect(out.contains(.spawn(app: "mail", launch: 2, reason: .user, restore: false)))
    }

    /// A crash within the crash window of a restoring launch deletes the preserved state; a later crash does not.
    @Test func crashSoonAfterRestoringDeletesState() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.open(app: "maps"), at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.critical), at: 10)
        try harness.send(.open(app: "mail"), at: 20)
        let crash = try harness.send(
            .processExited(app: "mail", launch: 2, end: .crashed(description: "SIGSEGV")), at: 25)
        #expect(crash.contains(.deleteRestorationState(app: "mail")))
        #expect(harness.terminations.last == "mail crashed")
        let next = try harness.send(.open(app: "mail"), at: 30)
        #expect(next.contains(.spawn(app: "mail", launch: 3, reason: .user, restore: false)))
    }

    /// A crash after the crash window keeps the preserved state.
    @Test func crashAfterTheWindowKeepsState() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.open(app: "maps"), at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.critical), at: 10)
        try harness.send(.open(app: "mail"), at: 20)
        let crash = try harness.send(
            .processExited(app: "mail", launch: 2, end: .crashed(description: "SIGSEGV")), at: 31)
        #expect(!crash.contains(.deleteRestorationState(app: "mail")))
    }

    /// A relaunch that fails (`launchFailed`, not `crashed`) ran none of the app's code: its
    /// preserved state stays, and the launch after it restores as the failed one would have.
    @Test func aFailedLaunchKeepsTheRestoration() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.open(app: "maps"), at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.critical), at: 10)
        let relaunch = try harness.send(.open(app: "mail"), at: 20)
        #expect(relaunch.contains(.spawn(app: "mail", launch: 2, reason: .user, restore: true)))
        let failed = try harness.send(.spawnFailed(app: "mail", launch: 2, message: "no such program"), at: 21)
        #expect(!failed.contains(.deleteRestorationState(app: "mail")))
        #expect(harness.terminations.last == "mail launchFailed")
        #expect(harness.state("mail") == .notRunning)
        let next = try harness.send(.open(app: "mail"), at: 30)
        #expect(next.contains(.spawn(app: "mail", launch: 3, reason: .user, restore: true)))
    }

    /// An app holding an acquired shared resource when it would be suspended is killed instead.
    @Test func heldResourceAtSuspensionKillsTheApp() throws {
        let policy = Policy(
            resources: ["camera": ResourceDeclaration(name: "camera")],
            apps: [AppPolicy(name: "cam", resources: ["camera"])])
        var harness = Harness(policy)
        try harness.send(.open(app: "cam"), at: 0)
        try harness.send(.acquire(app: "cam", resource: "camera"), at: 1)
        try harness.send(.home, at: 2)
        harness.advance(to: 7)
        #expect(harness.terminations == ["cam heldSharedResource"])
        #expect(!harness.actions.contains { if case .freeze = $0 { true } else { false } })
    }

    /// A released resource no longer stops the suspension; resource paths are guarded at the freeze.
    @Test func releasedResourceAllowsSuspensionWithGuardedPaths() throws {
        let policy = Policy(
            resources: ["db": ResourceDeclaration(name: "db", paths: ["/var/lib/shared.db"])],
            apps: [AppPolicy(name: "cam", resources: ["db"])])
        var harness = Harness(policy)
        try harness.send(.open(app: "cam"), at: 0)
        try harness.send(.acquire(app: "cam", resource: "db"), at: 1)
        try harness.send(.release(app: "cam", resource: "db"), at: 1)
        try harness.send(.home, at: 2)
        harness.advance(to: 7)
        #expect(
            harness.actions.contains(
                .freeze(app: "cam", guardPaths: [ResourcePath(resource: "db", path: "/var/lib/shared.db")])))
        try harness.send(.heldAtSuspension(app: "cam", resource: "db"), at: 7)
        #expect(harness.terminations == ["cam heldSharedResource"])
    }

    /// Acquiring a resource the app's policy does not list is refused.
    @Test func acquiringAnUnlistedResourceIsRefused() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        #expect(throws: LifecycleError.self) { try harness.send(.acquire(app: "mail", resource: "camera")) }
    }

    /// An unexpected clean exit is recorded as exited and makes the app not running.
    @Test func unexpectedExitIsRecordedAsExited() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.processExited(app: "mail", launch: 1, end: .exited(code: 0)), at: 1)
        #expect(harness.terminations == ["mail exited"])
        #expect(harness.statuses == ["mail foreground", "mail terminating"])
        #expect(harness.state("mail") == .notRunning)
    }

    /// reset terminates a running app, deletes its state and rotates its token.
    @Test func resetTerminatesAndDeletesState() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        let out = try harness.send(.reset(app: "mail"), at: 1)
        #expect(out.contains(.terminate(app: "mail", reason: .userForceQuit)))
        #expect(out.contains(.deleteRestorationState(app: "mail")))
        #expect(harness.state("mail") == .notRunning)
    }

    /// Apps removed by a policy change are terminated gracefully; new apps start not running.
    @Test func policyChangeRemovesAndAddsApps() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        let out = try harness.send(
            .policyChanged(Policy(apps: [AppPolicy(name: "maps"), AppPolicy(name: "news")])), at: 1)
        #expect(out.contains(.terminate(app: "mail", reason: .policyRemoved)))
        #expect(harness.state("mail") == nil)
        #expect(harness.state("news") == .notRunning)
        #expect(throws: LifecycleError.self) { try harness.send(.open(app: "mail"), at: 2) }
        try harness.send(.open(app: "news"), at: 3)
        #expect(harness.state("news") == .active)
    }

    /// A timer that was cancelled, or fires before its deadline, is ignored.
    @Test func staleTimersAreIgnored() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 1)
        let early = try harness.core.handle(.timerFired(TimerID(app: "mail", kind: .backgroundGrace)), at: seconds(3))
        #expect(early.isEmpty)
        try harness.send(.open(app: "mail"), at: 4)
        let cancelled = try harness.core.handle(
            .timerFired(TimerID(app: "mail", kind: .backgroundGrace)), at: seconds(6))
        #expect(cancelled.isEmpty)
        #expect(harness.state("mail") == .active)
    }
}
