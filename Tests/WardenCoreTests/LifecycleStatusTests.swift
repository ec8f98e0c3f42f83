import Testing
import WardenCore

@Suite struct LifecycleStatusTests {
    static let reported = Policy(apps: [AppPolicy(name: "sdk", statusSource: .reported)])

    /// A reported app's status comes from its reports, published on change only.
    @Test func reportedStatusIsPublishedOnChange() throws {
        var harness = Harness(Self.reported)
        try harness.send(.open(app: "sdk"), at: 0)
        #expect(harness.statuses.isEmpty)
        try harness.send(.reportStatus(app: "sdk", status: .foreground), at: 1)
        try harness.send(.reportStatus(app: "sdk", status: .foreground), at: 2)
        try harness.send(.reportStatus(app: "sdk", status: .background), at: 3)
        #expect(harness.statuses == ["sdk foreground", "sdk background"])
    }

    /// A reported app is never frozen: it stays in background.
    @Test func reportedAppIsNotSuspended() throws {
        var harness = Harness(Self.reported)
        try harness.send(.open(app: "sdk"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 100)
        #expect(harness.state("sdk") == .background)
        #expect(!harness.actions.contains { if case .freeze = $0 { true } else { false } })
    }

    /// Watchdog: an app believed to be in background is left alone, without a scan.
    @Test func watchdogLeavesABackgroundAppAlone() throws {
        var harness = Harness(Self.reported)
        try harness.send(.open(app: "sdk"), at: 0)
        try harness.send(.reportStatus(app: "sdk", status: .background), at: 1)
        harness.advance(to: 601)
        #expect(!harness.actions.contains(.scan(app: "sdk")))
    }

    /// Watchdog: a scan finding the app still in the foreground re-arms the watchdog.
    @Test func watchdogRearmsWhenStillForeground() throws {
        var harness = Harness(Self.reported)
        try harness.send(.open(app: "sdk"), at: 0)
        try harness.send(.reportStatus(app: "sdk", status: .foreground), at: 1)
        harness.advance(to: 601)
        #expect(harness.actions.contains(.scan(app: "sdk")))
        try harness.send(.scanResult(app: "sdk", outcome: .foreground), at: 601)
        #expect(harness.deadline("sdk", .watchdog) == seconds(1201))
        #expect(harness.statuses == ["sdk foreground"])
    }

    /// Watchdog: a scan finding the app in background publishes background.
    @Test func watchdogPublishesBackgroundFromTheScan() throws {
        var harness = Harness(Self.reported)
        try harness.send(.open(app: "sdk"), at: 0)
        try harness.send(.reportStatus(app: "sdk", status: .foreground), at: 1)
        harness.scans("sdk", find: .background)
        harness.advance(to: 601)
        #expect(harness.actions.contains(.scan(app: "sdk")))
        #expect(harness.statuses == ["sdk foreground", "sdk background"])
        #expect(harness.deadline("sdk", .watchdog) == nil)
    }

    /// Watchdog: a failed scan publishes unknown and re-arms.
    @Test func watchdogPublishesUnknownWhenTheScanFails() throws {
        var harness = Harness(Self.reported)
        try harness.send(.open(app: "sdk"), at: 0)
        try harness.send(.reportStatus(app: "sdk", status: .foreground), at: 1)
        harness.advance(to: 601)
        try harness.send(.scanResult(app: "sdk", outcome: .error), at: 601)
        #expect(harness.statuses == ["sdk foreground", "sdk unknown"])
        #expect(harness.deadline("sdk", .watchdog) == seconds(1201))
    }

    /// A managed app cannot report its status.
    @Test func managedAppCannotReportStatus() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        #expect(throws: LifecycleError.self) { try harness.send(.reportStatus(app: "mail", status: .background)) }
    }

    /// A group found thawed while suspended is frozen again; one found frozen while active is thawed.
    @Test func observedFreezerStateIsReconciled() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.open(app: "maps"), at: 1)
        harness.advance(to: 10)
        let refreeze = try harness.send(.observedFrozen(app: "mail", frozen: false), at: 10)
        #expect(refreeze.contains(.freeze(app: "mail", guardPaths: [])))
        let thaw = try harness.send(.observedFrozen(app: "maps", frozen: true), at: 11)
        #expect(thaw.contains(.thaw(app: "maps")))
        #expect(harness.state("maps") == .active)
    }

    /// A snapshot shows state, band, remaining budget, open tasks and the next fetch wake.
    @Test func snapshotDescribesTheApp() throws {
        var news = AppPolicy(name: "news", backgroundModes: [.fetch], fetchInterval: .every(.seconds(900)))
        news.settings.fetch.coalesce = .zero
        var harness = Harness(Policy(apps: [news]))
        try harness.send(.open(app: "news"), at: 0)
        try harness.send(.beginTask(app: "news", name: "sync"), at: 1)
        try harness.send(.home, at: 10)
        let snapshot = try #require(harness.core.snapshot(of: "news", at: seconds(70)))
        #expect(snapshot.state == .background)
        #expect(snapshot.status == .background)
        #expect(snapshot.band == .backgroundTask)
        #expect(snapshot.taskTimeRemaining == .seconds(540))
        #expect(snapshot.openTasks == [AppSnapshot.OpenTask(id: 1, name: "sync")])
        #expect(snapshot.nextFetchWake == seconds(900))
        #expect(snapshot.launch == 1)
        #expect(harness.core.snapshots(at: seconds(70)).map(\.name) == ["news"])
        #expect(harness.core.snapshot(of: "nobody", at: seconds(70)) == nil)
    }

    /// An app whose process is gone shows the status `unknown`, not the `terminating` its
    /// termination published last; the notifier's publications still end with `terminating`.
    @Test func anAppThatStoppedShowsNoStaleStatus() throws {
        var harness = Harness(policy([AppPolicy(name: "mail", command: "/bin/mail")]))
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.processExited(app: "mail", launch: 1, end: .exited(code: 0)), at: 1)
        #expect(harness.state("mail") == .notRunning)
        #expect(harness.core.snapshot(of: "mail", at: harness.now)?.status == .unknown)
        #expect(harness.statuses.last == "mail terminating")
        try harness.send(.open(app: "mail"), at: 2)
        try harness.send(.forceQuit(app: "mail"), at: 3)
        #expect(harness.state("mail") == .notRunning)
        #expect(harness.core.snapshots(at: harness.now).first?.status == .unknown)
    }
}
