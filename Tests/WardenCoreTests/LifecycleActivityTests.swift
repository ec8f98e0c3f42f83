import Testing
import WardenCore

/// Rule 14: continuous activities. An app with a continuous mode that holds an activity runs in
/// background with no task budget, is never suspended, is killed after background tasks and
/// before the foreground, and runs in the activity CPU class; the activity ends with the app.
@Suite struct LifecycleActivityTests {
    static func policy(maxActivities: Int? = nil) -> Policy {
        var settings = TimingSettings()
        settings.background.maxActivities = maxActivities
        return Policy(
            settings: settings,
            apps: [
                AppPolicy(name: "music", backgroundModes: [.audio], settings: settings),
                AppPolicy(name: "nav", backgroundModes: [.location, .audio], settings: settings),
                AppPolicy(name: "mail", settings: settings),
            ])
    }

    /// Opens `apps` one after the other at `time`, the last in the foreground.
    static func open(_ apps: [String], _ harness: inout Harness, at time: Double = 0) throws {
        for app in apps { try harness.send(.open(app: app), at: time) }
    }

    /// An app holding an audio activity keeps running in background far past the grace and the
    /// task budget, with its task still open, while an idle app is suspended after the grace.
    @Test func anActivityKeepsTheAppRunningWithNoBudget() throws {
        var harness = Harness(Self.policy())
        try harness.send(.open(app: "music"), at: 0)
        let begun = try harness.send(.beginActivity(app: "music", mode: "audio"), at: 1)
        #expect(begun.contains(.reply(.activityBegun(id: 1))))
        try harness.send(.beginTask(app: "music", name: "download"), at: 1)
        try harness.send(.open(app: "mail"), at: 2)
        try harness.send(.home, at: 3)
        #expect(
            harness.journal.contains {
                $0.app == "music"
                    && $0.kind
                        == .decision(
                            "Keeps running in background: it holds activity 1 (audio), so no grace or task budget runs and it is not suspended."
                        )
            })
        #expect(harness.deadline("music", .backgroundGrace) == nil)
        #expect(harness.deadline("music", .taskBudget) == nil)
        #expect(try harness.send(.timeRemaining(app: "music"), at: 4) == [.reply(.timeRemaining(nil))])
        harness.advance(to: 3600)
        #expect(harness.state("music") == .background)
        #expect(harness.state("mail") == .suspended)
        #expect(harness.terminations.isEmpty)
        #expect(!harness.actions.contains(.freeze(app: "music", guardPaths: [])))
    }

    /// Ending the last activity in background starts a fresh background session: a full task
    /// budget for the open task, then suspension once the task ends.
    @Test func endingTheActivityGivesAFreshBudget() throws {
        var harness = Harness(Self.policy())
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.beginTask(app: "music", name: "save"), at: 0)
        try harness.send(.home, at: 1)
        let ended = try harness.send(.endActivity(app: "music", activityID: 1), at: 1000)
        #expect(ended.contains { if case .setCPU(_, .background, _) = $0 { true } else { false } })
        #expect(harness.deadline("music", .taskBudget) == seconds(1600))
        #expect(try harness.send(.timeRemaining(app: "music"), at: 1100) == [.reply(.timeRemaining(.seconds(500)))])
        try harness.send(.endTask(app: "music", taskID: 1), at: 1200)
        #expect(harness.state("music") == .suspended)
    }

    /// Without a task, the app whose activity ended gets the background grace, then is suspended.
    @Test func endingTheActivityWithoutTasksSuspendsAfterTheGrace() throws {
        var harness = Harness(Self.policy())
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.home, at: 1)
        try harness.send(.endActivity(app: "music", activityID: 1), at: 100)
        harness.advance(to: 104.9)
        #expect(harness.state("music") == .background)
        harness.advance(to: 105)
        #expect(harness.state("music") == .suspended)
    }

    /// An activity is refused with a sentence without its mode, for a name that is no
    /// continuous mode, and in background when none is held.
    @Test func anActivityIsRefusedWithoutTheMode() throws {
        var harness = Harness(Self.policy())
        try Self.open(["mail"], &harness)
        #expect(
            throws: LifecycleError(
                .conflict,
                "App \"mail\" does not declare the background mode \"audio\" in background_modes, so it cannot begin an activity of that mode."
            )
        ) { try harness.send(.beginActivity(app: "mail", mode: "audio"), at: 1) }
        #expect(throws: LifecycleError.self) { try harness.send(.beginActivity(app: "mail", mode: "fetch"), at: 1) }
        try Self.open(["music", "mail"], &harness, at: 2)
        #expect(harness.state("music") == .background)
        #expect(throws: LifecycleError.self) { try harness.send(.beginActivity(app: "music", mode: "audio"), at: 3) }
        #expect(throws: LifecycleError.self) { try harness.send(.endActivity(app: "music", activityID: 1), at: 3) }
    }

    /// The band of an activity is between background tasks and the foreground (rule 9); its
    /// oom_score_adj is between theirs (rule 10); its CPU class is its own (rule 13).
    @Test func anActivityHasItsOwnBandScoreAndClass() throws {
        var harness = Harness(Self.policy())
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        let home = try harness.send(.open(app: "mail"), at: 1)
        #expect(home.contains(.setOOMScore(app: "music", band: .activity, score: 50)))
        #expect(
            home.contains(.setCPU(app: "music", cpuClass: .activity, control: CPUControl(weight: 100, ioWeight: 100))))
        #expect(KillBand.backgroundTask < .activity && KillBand.activity < .foreground)
        let snapshot = harness.core.snapshot(of: "music", at: seconds(2))
        #expect(snapshot?.band == .activity)
        #expect(snapshot?.cpuClass == .activity)
        #expect(snapshot?.activities == [AppSnapshot.Activity(id: 1, mode: .audio)])
        let outlook = harness.core.outlook(of: "music", at: seconds(2)) ?? []
        #expect(outlook.contains { $0.hasPrefix("It holds activity 1 (audio)") })
    }

    /// Under critical pressure the suspended app goes first, then the one running a task, and
    /// the app holding an activity only after them, before the foreground.
    @Test func anActivityIsKilledAfterBackgroundTasks() throws {
        var apps = Self.policy().apps
        apps.append(AppPolicy(name: "sync"))
        var harness = Harness(Policy(memory: MemorySettings(killForeground: true), apps: apps))
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.open(app: "sync"), at: 1)
        try harness.send(.beginTask(app: "sync", name: "upload"), at: 1)
        try harness.send(.open(app: "nav"), at: 2)
        try harness.send(.open(app: "mail"), at: 3)
        for (app, size) in [("music", 50), ("sync", 100), ("nav", 200), ("mail", 300)] {
            try harness.send(.footprint(app: app, bytes: Int64(size) << 20), at: 4)
        }
        harness.advance(to: 20)
        #expect(harness.state("nav") == .suspended)
        for time in [21.0, 22, 23, 24] { try harness.send(.pressure(.critical), at: time) }
        #expect(
            harness.terminations == [
                "nav memoryPressure", "sync memoryPressure", "music memoryPressure", "mail memoryPressure",
            ])
    }

    /// The activity ends with the app: after a force-quit and a new launch, the app holds none
    /// and is suspended after the grace like any other.
    @Test func anActivityEndsWithTheApp() throws {
        var harness = Harness(Self.policy())
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.forceQuit(app: "music"), at: 1)
        #expect(harness.state("music") == .notRunning)
        try harness.send(.open(app: "music"), at: 2)
        #expect(harness.core.snapshot(of: "music", at: seconds(2))?.activities == [])
        try harness.send(.home, at: 3)
        harness.advance(to: 8)
        #expect(harness.state("music") == .suspended)
    }

    /// `max_activities` caps how many apps hold an activity at once: a second app is refused
    /// with a sentence while the first holds one, and may begin one once it ended.
    @Test func maxActivitiesCapsTheHolders() throws {
        var harness = Harness(Self.policy(maxActivities: 1))
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.open(app: "nav"), at: 1)
        #expect(
            throws: LifecycleError(
                .conflict,
                "App \"nav\" cannot begin an activity: \"music\" already holds one, the most the policy allows at once (max_activities = 1)."
            )
        ) { try harness.send(.beginActivity(app: "nav", mode: "location"), at: 2) }
        try harness.send(.endActivity(app: "music", activityID: 1), at: 3)
        try harness.send(.endActivity(app: "music", activityID: 2), at: 3)
        let begun = try harness.send(.beginActivity(app: "nav", mode: "location"), at: 4)
        #expect(begun.contains(.reply(.activityBegun(id: 1))))
    }

    /// `activity_limit` ends the activities of an app left unattended in background that long:
    /// a return to the foreground counts anew; the app is told, cannot begin another until it is
    /// opened, and is suspended after the grace.
    @Test func activityLimitEndsAnUnattendedActivity() throws {
        var settings = TimingSettings()
        settings.background.activityLimit = .seconds(3600)
        let apps = [AppPolicy(name: "music", backgroundModes: [.audio], settings: settings)]
        var harness = Harness(Policy(settings: settings, apps: apps))
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.home, at: 10)
        #expect(harness.deadline("music", .activityLimit) == seconds(3610))
        try harness.send(.open(app: "music"), at: 1000)
        #expect(harness.deadline("music", .activityLimit) == nil)
        try harness.send(.home, at: 2000)
        harness.advance(to: 5599)
        #expect(harness.core.snapshot(of: "music", at: seconds(5599))?.activities.count == 1)
        harness.advance(to: 5600)
        #expect(harness.messages(to: "music").contains(.activitiesEnded(activityIDs: [1], after: .seconds(3600))))
        #expect(harness.core.snapshot(of: "music", at: seconds(5600))?.activities == [])
        #expect(throws: LifecycleError.self) { try harness.send(.beginActivity(app: "music", mode: "audio"), at: 5601) }
        harness.advance(to: 5605)
        #expect(harness.state("music") == .suspended)
        #expect(harness.terminations.isEmpty)
    }

    /// A reload that takes the mode away ends the activity begun under it: the app is then
    /// suspended after the grace.
    @Test func aReloadWithoutTheModeEndsTheActivity() throws {
        var harness = Harness(Self.policy())
        try harness.send(.open(app: "music"), at: 0)
        try harness.send(.beginActivity(app: "music", mode: "audio"), at: 0)
        try harness.send(.home, at: 1)
        var reloaded = Self.policy()
        reloaded.apps[0].backgroundModes = []
        try harness.send(.policyChanged(reloaded), at: 100)
        #expect(harness.core.snapshot(of: "music", at: seconds(100))?.activities == [])
        harness.advance(to: 105)
        #expect(harness.state("music") == .suspended)
    }
}
