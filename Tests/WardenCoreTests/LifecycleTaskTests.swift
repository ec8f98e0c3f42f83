import Testing
import WardenCore

@Suite struct LifecycleTaskTests {
    static let mail = Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")])

    /// An app with nothing keeping it awake is suspended when the background grace ends, not before.
    @Test func idleBackgroundAppIsSuspendedAfterTheGrace() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 10)
        harness.advance(to: 14.9)
        #expect(harness.state("mail") == .background)
        harness.advance(to: 15)
        #expect(harness.state("mail") == .suspended)
        #expect(harness.actions.contains(.freeze(app: "mail", guardPaths: [])))
    }

    /// Entering background journals $AppEnd, publishes background and asks the app to save its state.
    @Test func enteringBackgroundEndsTheSessionAndAsksToSaveState() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        let out = try harness.send(.home, at: 7)
        #expect(
            out.contains(
                .journal(
                    JournalRecord(
                        app: "mail", time: seconds(7), kind: .analytics(.appEnd(foregroundDuration: .seconds(7)))))))
        #expect(out.contains(.publishStatus(app: "mail", status: .background)))
        #expect(out.contains(.deliver(app: "mail", message: .saveState)))
    }

    /// The task budget counts from entering background: a task begun in the foreground is not charged for it.
    @Test func budgetCountsFromEnteringBackground() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        let begun = try harness.send(.beginTask(app: "mail", name: "upload"), at: 100)
        #expect(begun.contains(.reply(.taskBegun(id: 1, remaining: nil))))
        try harness.send(.home, at: 200)
        let remaining = try harness.send(.timeRemaining(app: "mail"), at: 260)
        #expect(remaining == [.reply(.timeRemaining(.seconds(540)))])
        #expect(harness.deadline("mail", .taskBudget) == seconds(800))
        #expect(harness.state("mail") == .background)
    }

    /// Open tasks get their expiration call expiration_warning before the budget ends.
    @Test func openTasksGetTheExpirationCallBeforeTheEnd() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.beginTask(app: "mail", name: "a"), at: 1)
        try harness.send(.beginTask(app: "mail", name: "b"), at: 1)
        try harness.send(.home, at: 10)
        harness.advance(to: 604.9)
        #expect(!harness.messages(to: "mail").contains { if case .expirationWarning = $0 { true } else { false } })
        harness.advance(to: 605)
        #expect(harness.messages(to: "mail").contains(.expirationWarning(taskIDs: [1, 2], remaining: .seconds(5))))
    }

    /// A task still open when the budget is spent gets the app killed with backgroundTaskExpired.
    @Test func unfinishedTaskIsTerminatedAtBudgetEnd() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 10)
        try harness.send(.beginTask(app: "mail", name: "upload"), at: 12)
        harness.advance(to: 609.9)
        #expect(harness.state("mail") == .background)
        harness.advance(to: 610)
        #expect(harness.terminations == ["mail backgroundTaskExpired"])
        #expect(harness.actions.contains(.kill(app: "mail", reason: .backgroundTaskExpired)))
    }

    /// Ending the last task in background suspends the app at once.
    @Test func endingTheLastTaskSuspendsAtOnce() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.beginTask(app: "mail", name: "a"), at: 1)
        try harness.send(.home, at: 2)
        try harness.send(.endTask(app: "mail", taskID: 1), at: 3)
        #expect(harness.state("mail") == .suspended)
    }

    /// Each return to the foreground gives a fresh budget in the next background session.
    @Test func eachBackgroundSessionGetsAFreshBudget() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.beginTask(app: "mail", name: "a"), at: 1)
        try harness.send(.home, at: 10)
        try harness.send(.open(app: "mail"), at: 500)
        try harness.send(.home, at: 520)
        #expect(harness.deadline("mail", .taskBudget) == seconds(1120))
        harness.advance(to: 1000)
        #expect(harness.terminations.isEmpty)
    }

    /// Between lock and unlock the task clock does not run down; after unlock it continues.
    @Test func lockPausesTheTaskClock() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 10)
        try harness.send(.beginTask(app: "mail", name: "a"), at: 10)
        try harness.send(.lock, at: 110)
        harness.advance(to: 2000)
        #expect(harness.state("mail") == .background)
        let remaining = try harness.send(.timeRemaining(app: "mail"), at: 2000)
        #expect(remaining == [.reply(.timeRemaining(.seconds(500)))])
        try harness.send(.unlock, at: 2000)
        harness.advance(to: 2499)
        #expect(harness.terminations.isEmpty)
        harness.advance(to: 2500)
        #expect(harness.terminations == ["mail backgroundTaskExpired"])
    }

    /// Lock sends foreground apps to background.
    @Test func lockSendsForegroundAppsToBackground() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.lock, at: 5)
        #expect(harness.state("mail") == .background)
        #expect(harness.analytics == ["$AppStart mail", "$AppEnd mail"])
    }

    /// A suspended app cannot begin a task, and a refused call changes nothing.
    @Test func suspendedAppCannotBeginATask() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        let before = harness.actions.count
        do {
            try harness.send(.beginTask(app: "mail", name: "late"))
            Issue.record("begin-task while suspended was accepted")
        } catch {
            #expect(error.code == .conflict)
        }
        #expect(harness.actions.count == before)
    }

    /// An app whose budget is spent cannot begin another task.
    @Test func spentBudgetRefusesNewTasks() throws {
        var policy = Self.mail
        policy.apps[0].settings.background.grace = .seconds(10_000)
        var harness = Harness(policy)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.home, at: 0)
        do {
            try harness.send(.beginTask(app: "mail", name: "late"), at: 700)
            Issue.record("begin-task with a spent budget was accepted")
        } catch {
            #expect(error.code == .conflict)
        }
    }

    /// Ending a task id the app does not have is refused as not found.
    @Test func unknownTaskIDIsNotFound() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.beginTask(app: "mail", name: "a"), at: 0)
        #expect(throws: LifecycleError(.notFound, "App \"mail\" has no open background task with id 7.")) {
            try harness.send(.endTask(app: "mail", taskID: 7))
        }
    }

    /// Task ids count 1, 2, 3 per launch and restart at 1 on the next launch.
    @Test func taskIDsRestartOnEachLaunch() throws {
        var harness = Harness(Self.mail)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.beginTask(app: "mail", name: "a"), at: 0)
        let second = try harness.send(.beginTask(app: "mail", name: "b"), at: 0)
        #expect(second == [.reply(.taskBegun(id: 2, remaining: nil))])
        try harness.send(.forceQuit(app: "mail"), at: 1)
        try harness.send(.open(app: "mail"), at: 2)
        let first = try harness.send(.beginTask(app: "mail", name: "c"), at: 3)
        #expect(first == [.reply(.taskBegun(id: 1, remaining: nil))])
    }
}
