import Testing
import WardenCore

@Suite struct LifecycleFetchTests {
    static func fetcher(_ name: String = "news", every interval: Duration = .seconds(900)) -> AppPolicy {
        var app = AppPolicy(name: name, backgroundModes: [.fetch], fetchInterval: .every(interval))
        app.settings.fetch.coalesce = .zero
        return app
    }

    /// A not-running fetch app is launched passively into background at its interval, with a fetch window.
    @Test func fetchWakeLaunchesAStoppedAppPassively() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        _ = try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        #expect(harness.actions.first == .armTimer(TimerID(app: "news", kind: .fetchWake), deadline: seconds(900)))
        harness.advance(to: 900)
        #expect(harness.actions.contains(.spawn(app: "news", launch: 1, reason: .fetch, restore: false)))
        #expect(harness.state("news") == .background)
        #expect(harness.analyticsEvents == [.appStartPassively(reason: .fetch)])
        #expect(harness.messages(to: "news").contains(.fetchStart(window: .seconds(30))))
        #expect(harness.statuses == ["news background"])
    }

    /// complete-fetch closes the window and suspends the app at once.
    @Test func completingAFetchSuspendsAtOnce() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        harness.advance(to: 900)
        try harness.send(.completeFetch(app: "news", result: .newData), at: 902)
        #expect(harness.state("news") == .suspended)
        #expect(harness.deadline("news", .fetchWake) == seconds(1800))
        #expect(harness.terminations.isEmpty)
    }

    /// A fetch window that ends without completion kills the app with fetchTimeout and stretches the next wake.
    @Test func fetchWithoutCompletionTimesOut() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        harness.advance(to: 929.9)
        #expect(harness.state("news") == .background)
        harness.advance(to: 930)
        #expect(harness.terminations == ["news fetchTimeout"])
        #expect(harness.state("news") == .notRunning)
    }

    /// After a fetch timeout (a system termination) no fetch wake is planned until the user opens the app.
    @Test func fetchTimeoutBlocksWakesUntilOpened() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        harness.advance(to: 930)
        #expect(harness.terminations == ["news fetchTimeout"])
        #expect(harness.deadline("news", .fetchWake) == nil)
        harness.advance(to: 10_000)
        #expect(harness.state("news") == .notRunning)
        #expect(
            harness.journal.contains {
                $0.kind == .decision("Fetch, push and accessory wakes will not launch it until the user opens it.")
            })
        try harness.send(.open(app: "news"), at: 10_000)
        #expect(harness.deadline("news", .fetchWake) != nil)
    }

    /// With wake_after_system_termination, a fetch timeout only stretches the next wake.
    @Test func wakeAfterSystemTerminationKeepsFetchWakes() throws {
        var app = Self.fetcher()
        app.settings.background.wakeAfterSystemTermination = true
        var harness = Harness(Policy(apps: [app]))
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        harness.advance(to: 930)
        #expect(harness.terminations == ["news fetchTimeout"])
        let next = try #require(harness.deadline("news", .fetchWake))
        #expect(next > seconds(1800))
        harness.advance(to: Double(next.sinceOrigin.milliseconds) / 1000)
        #expect(harness.state("news") == .background)
    }

    /// complete-fetch without an open window is refused as a conflict.
    @Test func completingWithoutAWindowIsAConflict() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.open(app: "news"), at: 0)
        #expect(throws: LifecycleError.self) { try harness.send(.completeFetch(app: "news", result: .newData)) }
    }

    /// A suspended app is thawed for its fetch.
    @Test func suspendedAppIsThawedForAFetch() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.open(app: "news"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 899)
        #expect(harness.state("news") == .suspended)
        harness.advance(to: 900)
        #expect(harness.actions.contains(.thaw(app: "news")))
        #expect(harness.state("news") == .background)
        #expect(harness.messages(to: "news").last == .fetchStart(window: .seconds(30)))
    }

    /// A foreground app skips its fetch wake.
    @Test func foregroundAppSkipsItsFetch() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.open(app: "news"), at: 0)
        harness.advance(to: 900)
        #expect(!harness.messages(to: "news").contains(.fetchStart(window: .seconds(30))))
        #expect(harness.deadline("news", .fetchWake) == seconds(1800))
    }

    /// background_refresh = false and fetch_interval = never plan no wake at all.
    @Test func disabledFetchPlansNoWake() throws {
        var off = Self.fetcher("off")
        off.backgroundRefresh = false
        var never = Self.fetcher("never")
        never.fetchInterval = .never
        var harness = Harness(Policy(apps: [off, never]))
        #expect(harness.core.start(at: .zero).isEmpty)
    }

    /// set-fetch-interval replans the wake; never removes it.
    @Test func setFetchIntervalReplans() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.footprint(app: "news", bytes: 0), at: 0)
        try harness.send(.setFetchInterval(app: "news", interval: .every(.seconds(120))), at: 10)
        #expect(harness.deadline("news", .fetchWake) == seconds(120))
        try harness.send(.setFetchInterval(app: "news", interval: .never), at: 20)
        #expect(harness.deadline("news", .fetchWake) == nil)
    }

    /// A force-quit app gets no fetch wake until the user opens it again.
    @Test func forceQuitStopsFetchWakes() throws {
        var harness = Harness(Policy(apps: [Self.fetcher()]))
        try harness.send(.open(app: "news"), at: 0)
        try harness.send(.forceQuit(app: "news"), at: 1)
        harness.advance(to: 5000)
        #expect(harness.state("news") == .notRunning)
        #expect(harness.deadline("news", .fetchWake) == nil)
        try harness.send(.open(app: "news"), at: 5000)
        #expect(harness.deadline("news", .fetchWake) != nil)
    }

    static let mib: Int64 = 1 << 20

    /// Three fetch apps due together at 900 s, suspended since 8 s; each is compressed with
    /// `swapped` MiB of its memory in swap, and the device (1000 MiB: warning below 150 MiB)
    /// last measured `available` MiB.
    static func suspendedFetchers(swapped: Int64, available: Int64) throws -> Harness {
        let names = ["a", "b", "c"]
        var harness = Harness(Policy(apps: names.map { Self.fetcher($0) }))
        for (offset, name) in names.enumerated() {
            try harness.send(.footprint(app: name, bytes: 200 * mib), at: 0)
            try harness.send(.open(app: name), at: Double(offset))
        }
        try harness.send(.home, at: 3)
        harness.advance(to: 9)
        for name in names {
            #expect(harness.state(name) == .suspended)
            try harness.send(.compressed(app: name, launch: 1, swappedBytes: swapped * mib), at: 10)
        }
        try harness.send(.memorySample(available: available * mib, total: 1000 * mib), at: 20)
        return harness
    }

    static func skippedForMemory(_ harness: Harness) -> [String] {
        harness.journal.compactMap { record in
            guard case .decision(let text) = record.kind, text.hasPrefix("Background fetch skipped:"),
                text.contains("memory") || text.contains("warning_enter")
            else { return nil }
            return record.app
        }
    }

    /// A fetch wake due while memory is at `warning` is skipped: the app stays frozen and its
    /// next wake comes an interval later, when memory is normal again it is woken.
    @Test func aFetchWakeUnderMemoryPressureIsSkipped() throws {
        var harness = try Self.suspendedFetchers(swapped: 0, available: 100)
        #expect(harness.core.memoryLevel == .warning)
        harness.advance(to: 900)
        #expect(["a", "b", "c"].allSatisfy { harness.state($0) == .suspended })
        #expect(Self.skippedForMemory(harness).sorted() == ["a", "b", "c"])
        // The level is journaled, so a replay skips these wakes too.
        #expect(!Lifecycle.wakeWaitedForMemory(harness.actions))
        #expect(!harness.messages(to: "a").contains(.fetchStart(window: .seconds(30))))
        #expect(harness.deadline("a", .fetchWake) == seconds(1800))
        try harness.send(.memorySample(available: 600 * Self.mib, total: 1000 * Self.mib), at: 1000)
        harness.advance(to: 1800)
        #expect(harness.state("a") == .background)
        #expect(harness.messages(to: "a").contains(.fetchStart(window: .seconds(30))))
        #expect(harness.terminations.isEmpty)
    }

    /// Wakes due together bring back only what memory can take: with 400 MiB that could be freed
    /// and a warning threshold of 150 MiB, two apps with 100 MiB each in swap are woken and the
    /// third waits; its next wake, with more memory free, goes through.
    @Test func aBatchOfCompressedAppsIsWokenOnlyAsFarAsMemoryAllows() throws {
        var harness = try Self.suspendedFetchers(swapped: 100, available: 400)
        #expect(harness.core.memoryLevel == .normal)
        harness.advance(to: 900)
        let woken = ["a", "b", "c"].filter { harness.state($0) == .background }
        let skipped = Self.skippedForMemory(harness)
        #expect(woken.count == 2)
        #expect(skipped.count == 1)
        #expect(Lifecycle.wakeWaitedForMemory(harness.actions))
        guard let waiting = skipped.first else { return }
        #expect(!woken.contains(waiting))
        #expect(harness.state(waiting) == .suspended)
        #expect(harness.deadline(waiting, .fetchWake) == seconds(1800))
        for name in woken { try harness.send(.completeFetch(app: name, result: .newData), at: 902) }
        try harness.send(.memorySample(available: 600 * Self.mib, total: 1000 * Self.mib), at: 1000)
        harness.advance(to: 1800)
        #expect(harness.messages(to: waiting).contains(.fetchStart(window: .seconds(30))))
        #expect(Self.skippedForMemory(harness).count == 1)
    }

    /// What the kernel swapped out of a frozen app counts as what compression did: measured with
    /// 200 MiB each in swap (compression had said nothing), only one of the three wakes fits in
    /// 400 MiB that could be freed over warning's 150 MiB; a swapped part above the footprint is
    /// refused.
    @Test func aSwappedPartMeasuredAfterSuspensionIsWhatAWakeBringsBack() throws {
        var harness = try Self.suspendedFetchers(swapped: 0, available: 400)
        for name in ["a", "b", "c"] {
            try harness.send(.footprint(app: name, bytes: 200 * Self.mib, swapped: 200 * Self.mib), at: 30)
        }
        #expect(harness.core.snapshot(of: "a", at: harness.now)?.swappedBytes == 200 * Self.mib)
        harness.advance(to: 900)
        #expect(["a", "b", "c"].filter { harness.state($0) == .background }.count == 1)
        #expect(Self.skippedForMemory(harness).count == 2)
        #expect(throws: LifecycleError.self) {
            try harness.send(.footprint(app: "a", bytes: 100 * Self.mib, swapped: 101 * Self.mib), at: 901)
        }
    }

    /// An app never measured is charged the mean footprint of the running apps: with one app of
    /// 200 MiB open and 400 MiB that could be freed (warning below 150 MiB), the first of three
    /// apps never launched goes into background for its fetch and the other two wait, where a
    /// cost of nothing would have launched all three into a device with no room for them.
    @Test func firstLaunchesForFetchesAreChargedWhatTheAppsMeasuredTake() throws {
        let names = ["a", "b", "c"]
        var harness = Harness(Policy(apps: names.map { Self.fetcher($0) } + [AppPolicy(name: "front")]))
        try harness.send(.open(app: "front"), at: 0)
        try harness.send(.footprint(app: "front", bytes: 200 * Self.mib), at: 1)
        try harness.send(.memorySample(available: 400 * Self.mib, total: 1000 * Self.mib), at: 2)
        harness.advance(to: 900)
        let launched = names.filter { harness.state($0) == .background }
        #expect(launched.count == 1)
        #expect(Self.skippedForMemory(harness).count == 2)
        #expect(Lifecycle.wakeWaitedForMemory(harness.actions))
        let skip = harness.journal.compactMap { record -> String? in
            guard case .decision(let text) = record.kind else { return nil }
            return text.hasPrefix("Background fetch skipped:") ? text : nil
        }
        #expect(
            skip.first
                == "Background fetch skipped: launching it, at an estimated 200MiB (the mean footprint of the running apps; it has none of its own yet), with 200MiB for wakes under way, would leave 0B that could be freed without killing, under warning_enter (150MiB)."
        )
        // Measured once it runs, the launched app counts as itself; the mean now covers it too.
        guard let first = launched.first else { return }
        try harness.send(.footprint(app: first, bytes: 100 * Self.mib), at: 910)
        try harness.send(.completeFetch(app: first, result: .newData), at: 911)
        try harness.send(.memorySample(available: 600 * Self.mib, total: 1000 * Self.mib), at: 1000)
        harness.advance(to: 1800)
        #expect(names.allSatisfy { harness.state($0) != .notRunning })
    }

    /// A stopped app's last footprint is no part of the estimate: with a 900 MiB app killed and
    /// a 100 MiB one running, an app never launched is weighed at 100 MiB and goes.
    @Test func aStoppedAppsLastFootprintDoesNotHoldFirstLaunchesBack() throws {
        var harness = Harness(Policy(apps: [Self.fetcher("a"), AppPolicy(name: "big"), AppPolicy(name: "front")]))
        try harness.send(.open(app: "big"), at: 0)
        try harness.send(.footprint(app: "big", bytes: 900 * Self.mib), at: 1)
        try harness.send(.forceQuit(app: "big"), at: 2)
        harness.advance(to: 10)
        #expect(harness.state("big") == .notRunning)
        try harness.send(.open(app: "front"), at: 20)
        try harness.send(.footprint(app: "front", bytes: 100 * Self.mib), at: 21)
        try harness.send(.memorySample(available: 400 * Self.mib, total: 1000 * Self.mib), at: 22)
        harness.advance(to: 900)
        #expect(harness.state("a") == .background)
        #expect(Self.skippedForMemory(harness).isEmpty)
    }

    /// With room for all three, none waits: the rule holds back only what memory cannot take.
    @Test func aBatchWithRoomForEveryAppIsWokenWhole() throws {
        var harness = try Self.suspendedFetchers(swapped: 100, available: 500)
        harness.advance(to: 900)
        #expect(["a", "b", "c"].allSatisfy { harness.state($0) == .background })
        #expect(Self.skippedForMemory(harness).isEmpty)
    }
}

@Suite struct LifecyclePushTests {
    static let chat = AppPolicy(name: "chat", backgroundModes: [.remoteNotification])
    static let wake = #"{"aps":{"content-available":1}}"#

    static func payload(id: String) -> String { #"{"aps":{"content-available":1},"id":"\#(id)"}"# }

    /// A push to a stopped app launches it passively with a push window.
    @Test func pushLaunchesAStoppedAppPassively() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        let out = try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 0)
        #expect(out.contains(.spawn(app: "chat", launch: 1, reason: .push, restore: false)))
        #expect(out.contains(.reply(.push(.delivered))))
        #expect(harness.analyticsEvents == [.appStartPassively(reason: .push)])
        #expect(harness.messages(to: "chat").contains(.pushPayload(payload: Self.wake, id: nil, window: .seconds(30))))
        #expect(harness.state("chat") == .background)
    }

    /// complete-push suspends; no completion kills with pushTimeout at the window end.
    @Test func pushWindowCompletesOrTimesOut() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 0)
        try harness.send(.completePush(app: "chat", result: .newData), at: 1)
        #expect(harness.state("chat") == .suspended)
        try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 10)
        #expect(harness.state("chat") == .background)
        harness.advance(to: 39.9)
        #expect(harness.terminations.isEmpty)
        harness.advance(to: 40)
        #expect(harness.terminations == ["chat pushTimeout"])
    }

    static let mib: Int64 = 1 << 20

    /// Push ids delivered to `app`, in order.
    static func deliveredIDs(_ harness: Harness, to app: String) -> [String?] {
        harness.messages(to: app).compactMap { message in
            guard case .pushPayload(_, let id, _) = message else { return nil }
            return .some(id)
        }
    }

    /// A push that would launch a stopped app while memory is at `warning` waits for memory, as
    /// a fetch does: it is held (the newest kept, no slot taken), tried again every minute, and
    /// delivered by the first try after memory is normal again.
    @Test func aPushUnderMemoryPressureWaitsForMemory() throws {
        var harness = Harness(Policy(apps: [Self.chat, AppPolicy(name: "front")]))
        try harness.send(.open(app: "front"), at: 0)
        try harness.send(.memorySample(available: 100 * Self.mib, total: 1000 * Self.mib), at: 1)
        #expect(harness.core.memoryLevel == .warning)
        let first = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p1"), id: nil), at: 10)
        #expect(first.contains(.reply(.push(.waitingForMemory))))
        #expect(harness.state("chat") == .notRunning)
        #expect(harness.deadline("chat", .pushSlot) == seconds(70))
        #expect(!Lifecycle.wakeWaitedForMemory(first))
        let second = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p2"), id: nil), at: 20)
        #expect(second.contains(.reply(.push(.waitingForMemory))))
        harness.advance(to: 70)
        #expect(harness.state("chat") == .notRunning)
        #expect(harness.deadline("chat", .pushSlot) == seconds(130))
        let explained = harness.core.outlook(of: "chat", at: harness.now) ?? []
        #expect(
            explained.contains(
                #"A push ("p2") is held for memory: memory pressure is warning; it is tried again in 1m."#))
        try harness.send(.memorySample(available: 600 * Self.mib, total: 1000 * Self.mib), at: 100)
        harness.advance(to: 130)
        #expect(harness.state("chat") == .background)
        #expect(Self.deliveredIDs(harness, to: "chat") == ["p2"])
        // The tries took no slot: two more pushes this hour are delivered at once.
        for (offset, id) in ["p3", "p4"].enumerated() {
            try harness.send(.completePush(app: "chat", result: .newData), at: 140 + Double(offset) * 10)
            let out = try harness.send(
                .push(target: .app("chat"), payload: Self.payload(id: id), id: nil), at: 145 + Double(offset) * 10)
            #expect(out.contains(.reply(.push(.delivered))))
        }
        let held = harness.journal.compactMap { record -> String? in
            guard case .decision(let text) = record.kind, text.hasPrefix("Push held for memory:") else { return nil }
            return text
        }
        // Each push held is journaled; a try that finds memory still short is not.
        #expect(
            held == [
                "Push held for memory: memory pressure is warning; tried again in 1m.",
                "Push held for memory: memory pressure is warning; tried again in 50s.",
            ])
    }

    /// A push that would thaw an app with more in swap than memory can take back waits too; the
    /// decision names what the wake would bring back, which a replay does not measure.
    @Test func aPushWaitsWhenItsWakeWouldBringBackMoreThanMemoryHolds() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.footprint(app: "chat", bytes: 350 * Self.mib), at: 0.5)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        #expect(harness.state("chat") == .suspended)
        try harness.send(.compressed(app: "chat", launch: 1, swappedBytes: 300 * Self.mib), at: 11)
        try harness.send(.memorySample(available: 400 * Self.mib, total: 1000 * Self.mib), at: 12)
        #expect(harness.core.memoryLevel == .normal)
        let out = try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 20)
        #expect(out.contains(.reply(.push(.waitingForMemory))))
        #expect(Lifecycle.wakeWaitedForMemory(out))
        #expect(harness.state("chat") == .suspended)
        try harness.send(.compressed(app: "chat", launch: 1, swappedBytes: 100 * Self.mib), at: 30)
        harness.advance(to: 80)
        #expect(harness.state("chat") == .background)
        #expect(harness.messages(to: "chat").contains(.pushPayload(payload: Self.wake, id: nil, window: .seconds(30))))
    }

    /// A suspended app with a push held for memory, opened by the user, is awake: the push is
    /// handed over at once, without a window, and no try is left planned.
    @Test func aPushHeldForMemoryIsHandedOverWhenTheUserOpensTheApp() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        try harness.send(.memorySample(available: 100 * Self.mib, total: 1000 * Self.mib), at: 11)
        let held = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p1"), id: nil), at: 20)
        #expect(held.contains(.reply(.push(.waitingForMemory))))
        #expect(harness.state("chat") == .suspended)
        try harness.send(.open(app: "chat"), at: 30)
        #expect(Self.deliveredIDs(harness, to: "chat") == ["p1"])
        #expect(
            harness.messages(to: "chat").contains(
                .pushPayload(payload: Self.payload(id: "p1"), id: "p1", window: .zero)))
        #expect(harness.deadline("chat", .pushSlot) == nil)
        harness.advance(to: 300)
        #expect(Self.deliveredIDs(harness, to: "chat") == ["p1"])
    }

    /// A push to an app awake in the background (a task open) wakes nothing, so memory does not
    /// hold it: it is delivered at once, even at `warning`.
    @Test func aPushToAnAppAwakeInTheBackgroundIsNotHeld() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.beginTask(app: "chat", name: "upload"), at: 1)
        try harness.send(.home, at: 2)
        try harness.send(.memorySample(available: 100 * Self.mib, total: 1000 * Self.mib), at: 3)
        #expect(harness.state("chat") == .background)
        let out = try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 4)
        #expect(out.contains(.reply(.push(.delivered))))
    }

    /// A try that comes while the app is being stopped and started again (a policy change that
    /// restarts it) is planned again, so the held push is delivered once memory allows.
    @Test func aPushHeldForMemoryOutlastsARestartOfItsApp() throws {
        let chat = AppPolicy(name: "chat", command: "/bin/chat", backgroundModes: [.remoteNotification])
        var harness = Harness(Policy(apps: [chat]), stubborn: ["chat"])
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        try harness.send(.memorySample(available: 100 * Self.mib, total: 1000 * Self.mib), at: 11)
        try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p1"), id: nil), at: 20)
        #expect(harness.deadline("chat", .pushSlot) == seconds(80))
        var changed = chat
        changed.command = "/bin/chat2"
        try harness.send(.policyChanged(Policy(apps: [changed]), restartChanged: true), at: 77)
        harness.advance(to: 80)
        #expect(harness.deadline("chat", .pushSlot) == seconds(140))
        try harness.send(.memorySample(available: 900 * Self.mib, total: 1000 * Self.mib), at: 95)
        harness.advance(to: 200)
        #expect(Self.deliveredIDs(harness, to: "chat") == ["p1"])
    }

    /// Without memory measured (a scenario's reported levels) or with room enough, a push is
    /// delivered at once: the hold is for what memory cannot take, nothing else.
    @Test func aPushWithRoomEnoughIsDeliveredAtOnce() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.memorySample(available: 600 * Self.mib, total: 1000 * Self.mib), at: 1)
        let out = try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 2)
        #expect(out.contains(.reply(.push(.delivered))))
        #expect(harness.state("chat") == .background)
    }

    /// A push with an id already delivered is not delivered again.
    @Test func duplicatePushIsDropped() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "n1"), id: nil), at: 0)
        try harness.send(.completePush(app: "chat", result: .noData), at: 1)
        let out = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "n1"), id: nil), at: 2)
        #expect(out.contains(.reply(.push(.duplicate))))
        #expect(harness.state("chat") == .suspended)
    }

    /// The fourth push in an hour is coalesced (newest kept) and delivered when a slot frees up.
    @Test func pushesBeyondTheHourlyLimitAreCoalesced() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        for (index, time) in [0.0, 100, 200].enumerated() {
            try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p\(index)"), id: nil), at: time)
            try harness.send(.completePush(app: "chat", result: .newData), at: time + 1)
        }
        let fourth = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p3"), id: nil), at: 300)
        #expect(fourth.contains(.reply(.push(.coalesced))))
        let fifth = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "p4"), id: nil), at: 400)
        #expect(fifth.contains(.reply(.push(.coalesced))))
        #expect(harness.deadline("chat", .pushSlot) == seconds(3600))
        harness.advance(to: 3600)
        let delivered = harness.messages(to: "chat").compactMap { message -> String? in
            guard case .pushPayload(_, let id, _) = message else { return nil }
            return id
        }
        #expect(delivered == ["p0", "p1", "p2", "p4"])
    }

    /// A push to an app being stopped (reset: SIGTERM sent, not yet exited) wakes nothing and
    /// publishes nothing after its `terminating`; it waits for the next launch.
    @Test func aPushToAnAppBeingStoppedWakesNothingAndWaitsForItsNextLaunch() throws {
        var harness = Harness(Policy(apps: [Self.chat]), stubborn: ["chat"])
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.ready(app: "chat"), at: 0)
        try harness.send(.reset(app: "chat"), at: 1)
        #expect(harness.state("chat") == .active)  // SIGTERM sent; the process has not exited yet
        let out = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "a"), id: nil), at: 2)
        #expect(out.contains(.reply(.push(.pendingLaunch))))
        #expect(!out.contains { if case .deliver = $0 { true } else { false } })
        #expect(!out.contains { if case .publishStatus = $0 { true } else { false } })
    }

    /// A push to a force-quit app wakes nothing; the newest is delivered at the next launch.
    @Test func forceQuitAppKeepsTheNewestPushForItsNextLaunch() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.forceQuit(app: "chat"), at: 1)
        let first = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "a"), id: nil), at: 2)
        #expect(first.contains(.reply(.push(.pendingLaunch))))
        try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "b"), id: nil), at: 3)
        #expect(harness.state("chat") == .notRunning)
        let open = try harness.send(.open(app: "chat"), at: 10)
        #expect(
            open.contains(
                .deliver(app: "chat", message: .pushPayload(payload: Self.payload(id: "b"), id: "b", window: .zero))))
    }

    /// Without the remote-notification mode a push is accepted but wakes nothing, in the
    /// foreground or not, and the journal says why.
    @Test func pushWithoutRemoteNotificationModeWakesNothing() throws {
        var harness = Harness(Policy(apps: [AppPolicy(name: "news", backgroundModes: [.fetch])]))
        let stopped = try harness.send(.push(target: .app("news"), payload: Self.wake, id: nil), at: 0)
        #expect(stopped.contains(.reply(.push(.notWoken))))
        #expect(harness.state("news") == .notRunning)
        #expect(
            harness.journal.contains {
                $0.kind
                    == .decision("Push wakes nothing: the app does not have the remote-notification background mode.")
            })
        try harness.send(.open(app: "news"), at: 1)
        let open = try harness.send(.push(target: .app("news"), payload: Self.wake, id: nil), at: 2)
        #expect(open.contains(.reply(.push(.notWoken))))
        #expect(harness.messages(to: "news").allSatisfy { if case .pushPayload = $0 { false } else { true } })
    }

    /// After a system termination a push wakes nothing; the newest is kept for the user's next open.
    @Test func systemTerminatedAppKeepsTheNewestPushForItsNextLaunch() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.critical), at: 10)
        #expect(harness.terminations == ["chat memoryPressure"])
        let first = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "a"), id: nil), at: 20)
        #expect(first.contains(.reply(.push(.pendingLaunch))))
        try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "b"), id: nil), at: 30)
        #expect(harness.state("chat") == .notRunning)
        let open = try harness.send(.open(app: "chat"), at: 40)
        #expect(open.contains(.spawn(app: "chat", launch: 2, reason: .user, restore: true)))
        #expect(
            open.contains(
                .deliver(app: "chat", message: .pushPayload(payload: Self.payload(id: "b"), id: "b", window: .zero))))
    }

    /// With wake_after_system_termination, a push launches a system-terminated app passively.
    @Test func wakeAfterSystemTerminationLetsAPushRelaunch() throws {
        var chat = Self.chat
        chat.settings.background.wakeAfterSystemTermination = true
        var harness = Harness(Policy(apps: [chat]))
        try harness.send(.open(app: "chat"), at: 0)
        try harness.send(.home, at: 1)
        harness.advance(to: 10)
        try harness.send(.pressure(.critical), at: 10)
        let out = try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 20)
        #expect(out.contains(.reply(.push(.delivered))))
        #expect(out.contains(.spawn(app: "chat", launch: 2, reason: .push, restore: true)))
    }

    /// A push to a stale token is refused as unregistered; the new token works.
    @Test func staleTokenIsRefusedAsUnregistered() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        let reply = try harness.send(.registerPush(app: "chat"), at: 0)
        guard case .reply(.deviceToken(let old)) = reply.first else {
            Issue.record("no device token in \(reply)")
            return
        }
        try harness.send(.reset(app: "chat"), at: 1)
        do {
            try harness.send(.push(target: .token(old), payload: Self.wake, id: nil), at: 2)
            Issue.record("a push to a stale token was accepted")
        } catch {
            #expect(error.code == .unregistered)
            #expect(error.message.contains("unregistered"))
        }
        let renewed = try harness.send(.registerPush(app: "chat"), at: 3)
        #expect(renewed != reply)
        guard case .reply(.deviceToken(let new)) = renewed.first else { return }
        let out = try harness.send(.push(target: .token(new), payload: Self.wake, id: nil), at: 4)
        #expect(out.contains(.reply(.push(.delivered))))
    }

    /// Oversize payloads, malformed JSON and unknown tokens are refused with their codes.
    @Test func badPushesAreRefusedWithTheirCodes() {
        var harness = Harness(Policy(apps: [Self.chat]))
        let big = #"{"aps":{"content-available":1},"pad":""# + String(repeating: "x", count: 4096) + #""}"#
        let cases: [(PushTarget, String, LifecycleError.Code)] = [
            (.app("chat"), big, .payloadTooLarge),
            (.app("chat"), #"{"aps":"#, .invalid),
            (.token("tok-nobody-1"), Self.wake, .notFound),
        ]
        for (target, payload, code) in cases {
            do {
                try harness.send(.push(target: target, payload: payload, id: nil), at: 0)
                Issue.record("push \(payload.prefix(20)) was accepted")
            } catch {
                #expect(error.code == code)
            }
        }
        #expect(harness.state("chat") == .notRunning)
    }

    /// A push without content-available wakes nothing.
    @Test func pushWithoutContentAvailableWakesNothing() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        let out = try harness.send(.push(target: .app("chat"), payload: #"{"alert":"hi"}"#, id: nil), at: 0)
        #expect(out.contains(.reply(.push(.notWoken))))
        #expect(harness.state("chat") == .notRunning)
    }

    /// A push to a foreground app is delivered without a window and without taking a slot.
    @Test func pushToAForegroundAppTakesNoSlot() throws {
        var harness = Harness(Policy(apps: [Self.chat]))
        try harness.send(.open(app: "chat"), at: 0)
        for index in 0..<5 {
            let out = try harness.send(.push(target: .app("chat"), payload: Self.payload(id: "f\(index)"), id: nil))
            #expect(out.contains(.reply(.push(.delivered))))
        }
        #expect(harness.deadline("chat", .pushWindow) == nil)
        try harness.send(.home, at: 1)
        let out = try harness.send(.push(target: .app("chat"), payload: Self.wake, id: nil), at: 2)
        #expect(out.contains(.reply(.push(.delivered))))
    }
}
