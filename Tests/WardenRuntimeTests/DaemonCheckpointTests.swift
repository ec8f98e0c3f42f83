import Foundation
import Testing
import WardenCore
import WardenRuntime

/// The core's checkpoint, which a restarted daemon continues from.
struct DaemonCheckpointTests {
    static let policy = Policy(
        foregroundSlots: 1,
        apps: [
            AppPolicy(name: "mail", command: "ballast"),
            AppPolicy(name: "chat", command: "ballast", backgroundModes: [.remoteNotification]),
            AppPolicy(name: "notes", command: "ballast"),
        ])

    /// A core in the middle of things (one foreground slot): mail backgrounded with an open
    /// task, chat in the foreground with a device token, notes suspended.
    static func busyCore() throws -> Lifecycle {
        var core = Lifecycle(policy: policy)
        let t0 = Instant(sinceOrigin: .seconds(100))
        for app in ["notes", "mail", "chat"] {
            _ = try core.handle(.open(app: app), at: t0)
            _ = try core.handle(.ready(app: app), at: t0)
            if app == "mail" {
                _ = try core.handle(.beginTask(app: "mail", name: "upload"), at: t0)
            }
        }
        _ = try core.handle(.registerPush(app: "chat"), at: t0)
        _ = try core.handle(.reset(app: "chat"), at: t0)
        _ = try core.handle(.processExited(app: "chat", launch: 1, end: .exited(code: 0)), at: t0)
        _ = try core.handle(.registerPush(app: "chat"), at: t0)
        _ = try core.handle(.timerFired(TimerID(app: "notes", kind: .backgroundGrace)), at: t0 + .seconds(6))
        return core
    }

    /// A checkpoint taken at one instant and restored on a clock shifted by an hour gives the
    /// same apps, states, tasks and remaining budgets, with every deadline shifted alike.
    @Test func aRestoredCoreHasTheSameAppsAndDeadlinesOnTheNewClock() throws {
        let core = try Self.busyCore()
        let taken = Instant(sinceOrigin: .seconds(110))
        let json = try JSONEncoder().encode(core.checkpoint(at: taken))
        let checkpoint = try JSONDecoder().decode(LifecycleCheckpoint.self, from: json)
        let shift: Duration = .seconds(3600)
        let restored = Lifecycle(policy: Self.policy, checkpoint: checkpoint, at: taken + shift)

        for name in ["mail", "chat", "notes"] {
            let before = try #require(core.snapshot(of: name, at: taken))
            let after = try #require(restored.snapshot(of: name, at: taken + shift))
            #expect(after.state == before.state)
            #expect(after.launch == before.launch)
            #expect(after.openTasks == before.openTasks)
            #expect(after.taskTimeRemaining == before.taskTimeRemaining)
        }
        #expect(restored.state(of: "notes") == .suspended)
        #expect(restored.state(of: "mail") == .background)
        let timersBefore = core.armedTimers().filter { $0.timer.kind != .fetchWake && $0.timer.kind != .pushSlot }
        let timersAfter = restored.armedTimers()
        #expect(timersAfter.map(\.timer) == timersBefore.map(\.timer))
        #expect(timersAfter.map(\.deadline) == timersBefore.map { $0.deadline + shift })
        #expect(timersAfter.contains { $0.timer == TimerID(app: "mail", kind: .taskBudget) })
    }

    /// The restored core goes on where the old one stopped: the open task's id is still valid
    /// and the next task gets the next id.
    @Test func aRestoredCoreAcceptsTheOpenTaskAndNumbersTheNextOneAfterIt() throws {
        let core = try Self.busyCore()
        let taken = Instant(sinceOrigin: .seconds(110))
        var restored = Lifecycle(policy: Self.policy, checkpoint: core.checkpoint(at: taken), at: .zero)
        let task = try #require(core.snapshot(of: "mail", at: taken)?.openTasks.first)
        let reply = try restored.handle(.beginTask(app: "mail", name: "again"), at: Instant(sinceOrigin: .seconds(1)))
        #expect(reply.contains(.reply(.taskBegun(id: task.id + 1, remaining: reply.taskRemaining))))
        _ = try restored.handle(.endTask(app: "mail", taskID: task.id), at: Instant(sinceOrigin: .seconds(2)))
        #expect(
            restored.snapshot(of: "mail", at: Instant(sinceOrigin: .seconds(2)))?.openTasks.map(\.id) == [task.id + 1])
    }

    /// Device tokens handed out before the restart stay current after it, and a token
    /// replaced by a reset stays stale.
    @Test func restoredDeviceTokensKeepTheirCurrentAndStaleStanding() throws {
        var restored = Lifecycle(policy: Self.policy, checkpoint: try Self.busyCore().checkpoint(at: .zero), at: .zero)
        restored.restoreDeviceTokens(["chat": "tok-chat-2"])
        let delivered = try restored.handle(
            .push(target: .token("tok-chat-2"), payload: #"{"aps":{"content-available":1}}"#, id: "n1"),
            at: Instant(sinceOrigin: .seconds(1)))
        #expect(delivered.contains(.reply(.push(.delivered))))
        #expect(throws: LifecycleError.self) {
            _ = try restored.handle(
                .push(target: .token("tok-chat-1"), payload: #"{"aps":{"content-available":1}}"#, id: "n2"),
                at: Instant(sinceOrigin: .seconds(2)))
        }
    }
}

extension [LifecycleAction] {
    /// The remaining time of the `taskBegun` reply among the actions, if there is one.
    var taskRemaining: Duration? {
        for action in self {
            if case .reply(.taskBegun(_, let remaining)) = action { return remaining }
        }
        return nil
    }
}
