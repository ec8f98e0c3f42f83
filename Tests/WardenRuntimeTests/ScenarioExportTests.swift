import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenScenario
import WardenSimulator

/// Windows of a journal written as scenarios, from entries made by hand.
struct ScenarioExportTests {
    static let start: Int64 = 1_800_000_000_000

    static let policy = """
        foreground_slots = 1   # one app in front
        [memory]
        kill_foreground = false
        [apps.mail]
        command = "/usr/bin/mail-app"
        [apps.mail.background]
        grace = "5s"
        [apps.maps]
        command = "/usr/bin/maps-app"
        """

    /// Entries in order, ids counting from 1, `time` in milliseconds from the start.
    static func journal(_ items: [(time: Int64, app: String, event: AppEvent)]) -> [JournalEntry] {
        items.enumerated().map { index, item in
            JournalEntry(id: Int64(index + 1), app: item.app, wallTimeMillis: start + item.time, event: item.event)
        }
    }

    static func load(_ text: String) throws -> Scenario {
        let path = NSTemporaryDirectory() + "appwarden-export-\(UUID().uuidString).toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ScenarioLoader.load(path: path)
    }

    static let system = JournalEntry.systemApp

    /// The policy goes inline (top-level keys under [policy], global tables under [policy.…],
    /// the apps' tables with facts that answer nothing by themselves), inputs become steps at
    /// their milliseconds from the daemon's start, and the replay meets the expectations.
    @Test func aWindowFromTheDaemonsStartReplaysWithItsPolicyInline() throws {
        let entries = Self.journal([
            (0, Self.system, .system(.daemonStarted(version: "1", readopted: []))),
            (0, Self.system, .input(.policy(path: "/etc/appwarden/policy.toml", text: Self.policy))),
            (1000, "mail", .input(.step("open mail"))),
            (1000, "mail", .analytics(.appStart(cold: true, afterPassive: false))),
            (1000, "mail", .status(.foreground)),
            (2500, "maps", .input(.step("open maps"))),
            (2500, "mail", .analytics(.appEnd(foregroundDuration: .milliseconds(1500)))),
            (2500, "mail", .status(.background)),
            (2500, "maps", .analytics(.appStart(cold: true, afterPassive: false))),
            (2500, "maps", .status(.foreground)),
            (9000, "mail", .input(.step("footprint mail 96MiB"))),
            (9000, Self.system, .input(.step("pressure critical"))),
            (9000, "mail", .status(.terminating)),
            (9000, "mail", .analytics(.appTerminated(reason: .memoryPressure))),
        ])
        let text = try ScenarioExport().scenario(from: entries)
        #expect(text.contains("[policy]\nforeground_slots = 1"))
        #expect(text.contains("[policy.memory]"))
        #expect(text.contains("[apps.mail]\non_fetch = \"never\""))
        #expect(text.contains("\"2500ms open maps\""))
        let scenario = try Self.load(text)
        #expect(scenario.policy.foregroundSlots == 1)
        #expect(scenario.expectations.killOrder == ["mail"])
        #expect(scenario.expectations.status?.count == 4)
        var simulator = Simulator(scenario: scenario)
        let result = simulator.run()
        #expect(result.passed, Comment(rawValue: result.diff))
    }

    /// A reload after the first input ends the export there and says so; what a replay cannot
    /// reproduce is named in a comment, and the expectations it would make wrong are left out.
    @Test func aReloadCutsTheExportAndWhatCannotBeReplayedIsNamed() throws {
        let entries = Self.journal([
            (0, Self.system, .system(.daemonStarted(version: "1", readopted: []))),
            (0, Self.system, .input(.policy(path: "/p.toml", text: Self.policy))),
            (1000, "mail", .input(.step("open mail"))),
            (1200, "mail", .input(.unreplayable("mail could not be launched: no such file"))),
            (5000, Self.system, .system(.policyReloaded(added: [], removed: [], changed: ["mail"]))),
            (6000, "maps", .input(.step("open maps"))),
        ])
        let text = try ScenarioExport().scenario(from: entries)
        #expect(text.contains("the policy was reloaded"))
        #expect(text.contains("#   at 2027-01-15T08:00:01.200Z: mail could not be launched: no such file"))
        #expect(!text.contains("open maps"))
        #expect(!text.contains("terminations ="))
        #expect(text.contains("until = \"5000ms\""))
        let scenario = try Self.load(text)
        #expect(scenario.steps.map(\.text) == ["1000ms open mail"])
        #expect(scenario.expectations.analytics == nil)
    }

    /// A window that starts after the policy came into force begins with each app's last
    /// footprint journaled before it (the daemon journals a footprint only when it changed),
    /// but none from before a daemon start or a policy, after which the daemon journals them afresh.
    @Test func aWindowBeginsWithTheFootprintsJournaledBeforeIt() throws {
        let entries = Self.journal([
            (0, Self.system, .system(.daemonStarted(version: "1", readopted: []))),
            (0, Self.system, .input(.policy(path: "/p.toml", text: Self.policy))),
            (500, "maps", .input(.step("footprint maps 10MiB"))),
            (600, Self.system, .system(.daemonStarted(version: "1", readopted: []))),
            (600, Self.system, .input(.policy(path: "/p.toml", text: Self.policy))),
            (1000, "mail", .input(.step("footprint mail 96MiB"))),
            (1000, "mail", .input(.step("footprint mail 64MiB"))),
            (1000, Self.system, .input(.step("pressure critical"))),
            (3000, "mail", .input(.step("open mail"))),
        ])
        let since = ScenarioExport(since: Self.start + 2000)
        let text = try since.scenario(from: entries)
        #expect(text.contains("\"0ms footprint mail 64MiB\""))
        #expect(!text.contains("96MiB"))
        #expect(!text.contains("footprint maps"))
        #expect(try Self.load(text).steps.map(\.text) == ["0ms footprint mail 64MiB", "1000ms open mail"])
        let fromStart = try ScenarioExport().scenario(from: entries)
        #expect(!fromStart.contains("footprint maps"))
        #expect(fromStart.contains("\"400ms footprint mail 64MiB\""))
    }

    /// A window without the policy in force at its start is refused with a sentence that says why.
    @Test func aWindowWithoutItsPolicyIsRefused() throws {
        let entries = Self.journal([(1000, "mail", .input(.step("open mail")))])
        #expect {
            _ = try ScenarioExport().scenario(from: entries)
        } throws: { error in
            (error as? ScenarioExportError)?.message.contains("holds no policy in force") == true
        }
        #expect(throws: ScenarioExportError.self) { _ = try ScenarioExport().scenario(from: []) }
    }

    /// The inputs journaled for a memory sample: nothing when it decides nothing; the candidates'
    /// footprints, then the sample to the byte, when it does.
    @Test func aMemorySampleIsJournaledOnlyWhenItDecides() {
        let sample = LifecycleEvent.memorySample(available: 30 << 20, total: 600 << 20)
        #expect(JournalInput.inputs(for: sample, actions: [], endsOnItsOwn: false, candidates: []).isEmpty)
        let kill = LifecycleAction.kill(app: "maps", reason: .memoryPressure)
        let candidate = KillCandidate(
            app: "maps", band: .suspended, footprint: 1_234_567, lastUsed: .zero, isProtected: false,
            isInForeground: false)
        let inputs = JournalInput.inputs(for: sample, actions: [kill], endsOnItsOwn: false, candidates: [candidate])
        #expect(inputs == [.step("footprint maps 1234567B"), .step("memory 30MiB of 600MiB")])
        let exit = LifecycleEvent.processExited(app: "maps", launch: 1, end: .crashed(description: "SIGSEGV"))
        #expect(
            JournalInput.inputs(for: exit, actions: [], endsOnItsOwn: true, candidates: []) == [.step("maps crash")])
        #expect(JournalInput.inputs(for: exit, actions: [], endsOnItsOwn: false, candidates: []).isEmpty)
    }

    /// A fetch wake skipped for the memory it would bring back is marked unreplayable (the
    /// figures it was weighed with are not journaled); a timer that decides nothing journals nothing.
    @Test func aFetchSkippedForTheMemoryItWouldBringBackIsUnreplayable() {
        let wake = LifecycleEvent.timerFired(TimerID(app: "news", kind: .fetchWake))
        #expect(JournalInput.inputs(for: wake, actions: [], endsOnItsOwn: false, candidates: []).isEmpty)
        let skipped = LifecycleAction.journal(
            JournalRecord(
                app: "news", time: .zero,
                kind: .decision(
                    "Background fetch skipped: bringing back its 100MiB would leave 50MiB that could be freed without killing, under warning_enter (150MiB)."
                )))
        let inputs = JournalInput.inputs(for: wake, actions: [skipped], endsOnItsOwn: false, candidates: [])
        #expect(inputs.count == 1)
        #expect(inputs.first?.name == "unreplayable")
    }

    /// A push held for the memory its wake would bring back keeps its step and is marked
    /// unreplayable after it; one held for the level (journaled, so a replay holds it too), or
    /// delivered, is only its step.
    @Test func aPushHeldForTheMemoryItsWakeWouldBringBackIsUnreplayable() {
        let payload = #"{"aps":{"content-available":1}}"#
        let push = LifecycleEvent.push(target: .app("chat"), payload: payload, id: nil)
        let step = JournalInput.step("push chat \(payload)")
        func held(_ why: String) -> LifecycleAction {
            .journal(
                JournalRecord(
                    app: "chat", time: .zero, kind: .decision("Push held for memory: \(why); tried again in 1m.")))
        }
        #expect(JournalInput.inputs(for: push, actions: [], endsOnItsOwn: false, candidates: []) == [step])
        let byLevel = JournalInput.inputs(
            for: push, actions: [held("memory pressure is warning")], endsOnItsOwn: false, candidates: [])
        #expect(byLevel == [step])
        let byCost = JournalInput.inputs(
            for: push,
            actions: [
                held(
                    "bringing back its 300MiB would leave 100MiB that could be freed without killing, under warning_enter (150MiB)"
                )
            ], endsOnItsOwn: false, candidates: [])
        #expect(byCost.count == 2)
        #expect(byCost.first == step)
        #expect(byCost.last?.name == "unreplayable")
    }

    /// A footprint journaled with its part in swap is written as the step that plays it again,
    /// to the byte.
    @Test func aFootprintWithItsPartInSwapIsWrittenAsItsStep() {
        let event = LifecycleEvent.footprint(app: "maps", bytes: 300 << 20, swapped: 1_234_567)
        #expect(JournalInput.stepText(of: event) == "footprint maps 300MiB swapped 1234567B")
        #expect(JournalInput.stepText(of: .footprint(app: "maps", bytes: 300 << 20)) == "footprint maps 300MiB")
    }
}
