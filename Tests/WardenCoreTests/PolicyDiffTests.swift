import Foundation
import Testing
import WardenCore

@Suite struct PolicyDiffTests {
    static let before = Policy(apps: [
        AppPolicy(name: "mail", command: "/bin/mail"), AppPolicy(name: "maps", command: "/bin/maps"),
        AppPolicy(name: "news", command: "/bin/news"), AppPolicy(name: "chat", command: "/bin/chat"),
    ])

    static func after() -> Policy {
        var news = AppPolicy(name: "news", command: "/bin/news")
        news.isProtected = true
        return Policy(apps: [
            AppPolicy(name: "mail", command: "/bin/mail2"), news, AppPolicy(name: "chat", command: "/bin/chat"),
            AppPolicy(name: "camera", command: "/bin/camera"),
        ])
    }

    /// A diff names the added, removed and changed apps with the keys that changed, and says
    /// what becomes of a running changed app: relaunched at its next launch, or restarted now.
    @Test func diffNamesAddedRemovedAndChangedAppsWithTheirOutcome() {
        let running: (String) -> Bool = { $0 == "mail" || $0 == "maps" || $0 == "news" }
        let diff = PolicyDiff(from: Self.before, to: Self.after(), running: running, restart: false)
        #expect(diff.added == ["camera"])
        #expect(diff.removed == ["maps"])
        #expect(diff.removedRunning == ["maps"])
        #expect(
            diff.changed == [
                PolicyDiff.AppChange(name: "mail", keys: ["command"], outcome: .atNextLaunch),
                PolicyDiff.AppChange(name: "news", keys: ["protected"], outcome: .appliedNow),
            ])
        #expect(
            diff.sentences.contains { $0.hasPrefix("Changed mail (command): it keeps running its current process") })
        let restarting = PolicyDiff(from: Self.before, to: Self.after(), running: running, restart: true)
        #expect(restarting.changed.first?.outcome == .restarted)
        #expect(restarting.changed.last?.outcome == .appliedNow)
    }

    /// Each per-app memory setting is named when it changes, and applies to a running app at once.
    @Test func aChangedMemorySettingIsNamedAndAppliedNow() {
        var compressed = AppPolicy(name: "mail", command: "/bin/mail")
        compressed.memory.compressSuspended = false
        var shared = AppPolicy(name: "maps", command: "/bin/maps")
        shared.memory.fairShare = .percent(20)
        let before = Policy(apps: [
            AppPolicy(name: "mail", command: "/bin/mail"), AppPolicy(name: "maps", command: "/bin/maps"),
        ])
        let diff = PolicyDiff(
            from: before, to: Policy(apps: [compressed, shared]), running: { _ in true }, restart: true)
        #expect(
            diff.changed == [
                PolicyDiff.AppChange(name: "mail", keys: ["memory.compress_suspended"], outcome: .appliedNow),
                PolicyDiff.AppChange(name: "maps", keys: ["memory.fair_share"], outcome: .appliedNow),
            ])
    }

    /// Reloading the same policy changes nothing and says so.
    @Test func identicalPoliciesHaveAnEmptyDiff() {
        let diff = PolicyDiff(from: Self.before, to: Self.before, running: { _ in true }, restart: true)
        #expect(diff.isEmpty)
        #expect(diff.sentences == ["No app was added, removed or changed."])
    }

    /// The core answers a reload with its diff and journals one decision per change under
    /// `appwarden`; a running app whose command changed keeps its process without a restart.
    @Test func reloadRepliesWithTheDiffAndJournalsIt() throws {
        var harness = Harness(Self.before)
        try harness.send(.open(app: "mail"), at: 0)
        let out = try harness.send(.policyChanged(Self.after()), at: 1)
        let replies = out.compactMap { action -> PolicyDiff? in
            if case .reply(.policyChanged(let diff)) = action { return diff }
            return nil
        }
        #expect(replies.count == 1)
        #expect(replies.first?.changed.first { $0.name == "mail" }?.outcome == .atNextLaunch)
        let journaled = out.compactMap { action -> String? in
            if case .journal(let record) = action, record.app == Lifecycle.systemJournalName,
                case .decision(let text) = record.kind
            {
                return text
            }
            return nil
        }
        #expect(journaled.contains { $0.hasPrefix("Policy reload: Changed mail (command)") })
        #expect(journaled.contains("Policy reload: Added camera: not running until it is opened or woken."))
        #expect(!out.contains(.terminate(app: "mail", reason: .policyChanged)))
        #expect(harness.state("mail") == .active)
    }

    /// With restarts asked for, a foreground app whose command changed is terminated
    /// gracefully and opened again once it has exited: a new launch, active again.
    @Test func restartChangedTerminatesAndReopensAForegroundApp() throws {
        var harness = Harness(Self.before)
        try harness.send(.open(app: "mail"), at: 0)
        let launchesBefore = harness.launches["mail"] ?? 0
        let out = try harness.send(.policyChanged(Self.after(), restartChanged: true), at: 1)
        #expect(out.contains(.terminate(app: "mail", reason: .policyChanged)))
        #expect(harness.state("mail") == .active)
        #expect((harness.launches["mail"] ?? 0) == launchesBefore + 1)
    }

    /// A change a plain reload left for the next launch is remembered: a later reload of the same
    /// file with restarts asked for restarts the app, and once it has been launched again the
    /// same reload changes nothing.
    @Test func restartChangedAfterAPlainReloadRestartsTheApp() throws {
        var harness = Harness(Self.before)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.policyChanged(Self.after()), at: 1)
        let launchesBefore = harness.launches["mail"] ?? 0
        let out = try harness.send(.policyChanged(Self.after(), restartChanged: true), at: 2)
        #expect(out.contains(.terminate(app: "mail", reason: .policyChanged)))
        #expect(
            out.contains(
                .reply(
                    .policyChanged(PolicyDiff(changed: [.init(name: "mail", keys: ["command"], outcome: .restarted)]))))
        )
        #expect((harness.launches["mail"] ?? 0) == launchesBefore + 1)
        let again = try harness.send(.policyChanged(Self.after(), restartChanged: true), at: 3)
        #expect(again.contains(.reply(.policyChanged(PolicyDiff()))))
    }

    /// The launch settings a running app was launched with survive a checkpoint written and read
    /// as JSON: after a plain reload and a restart, a reload with restarts asked for still
    /// restarts the app.
    @Test func restartChangedAfterAPlainReloadAndARestartRestartsTheApp() throws {
        var harness = Harness(Self.before)
        try harness.send(.open(app: "mail"), at: 0)
        try harness.send(.policyChanged(Self.after()), at: 1)
        let saved = try JSONEncoder().encode(harness.core.checkpoint(at: harness.now))
        let decoded = try JSONDecoder().decode(LifecycleCheckpoint.self, from: saved)
        harness.core = Lifecycle(policy: Self.after(), checkpoint: decoded, at: harness.now)
        let out = try harness.send(.policyChanged(Self.after(), restartChanged: true), at: 2)
        #expect(out.contains(.terminate(app: "mail", reason: .policyChanged)))
    }
}
