import Testing
import WardenCore

/// Rules 4, 5 and 14 where the runtime counts an app's stall: a fetch, push or accessory window
/// lasts the time the app could run. The core alone, with the test playing the runtime's answers.
@Suite struct LifecycleWindowStallTests {
    static let fetchWake = TimerID(app: "news", kind: .fetchWake)
    static let fetchWindow = TimerID(app: "news", kind: .fetchWindow)
    static let wake = #"{"aps":{"content-available":1}}"#

    /// A core with `news`, fetching every 900 s, and `chat`, woken by pushes; `news` is launched
    /// for its first fetch at 900 s and the runtime's first stall measurement says `baseline`.
    static func fetching(baseline: Duration? = .seconds(5)) throws -> Lifecycle {
        var news = AppPolicy(name: "news", backgroundModes: [.fetch], fetchInterval: .every(.seconds(900)))
        news.settings.fetch.coalesce = .zero
        let chat = AppPolicy(name: "chat", backgroundModes: [.remoteNotification])
        var core = Lifecycle(policy: Policy(apps: [news, chat]))
        _ = try core.handle(.footprint(app: "news", bytes: 0), at: at(0))
        let opened = try core.handle(.timerFired(fetchWake), at: at(900))
        #expect(opened.contains(.measureStall(app: "news", launch: 1)))
        _ = try core.handle(.launched(app: "news", launch: 1), at: at(900))
        _ = try core.handle(.stallMeasured(app: "news", launch: 1, total: baseline), at: at(900))
        return core
    }

    static func at(_ seconds: Double) -> Instant { Instant(sinceOrigin: .milliseconds(Int64(seconds * 1000))) }

    static func decisions(_ actions: [LifecycleAction]) -> [String] {
        actions.compactMap {
            if case .journal(let record) = $0, case .decision(let text) = record.kind { text } else { nil }
        }
    }

    static func terminations(_ actions: [LifecycleAction]) -> [TerminationReason] {
        actions.compactMap { if case .kill(_, let reason) = $0 { reason } else { nil } }
    }

    /// A fetch window is lengthened by the stall the app's group went through in it, and an app
    /// that completes in the added time is suspended, not terminated.
    @Test func aFetchWindowIsLengthenedByTheAppsOwnStall() throws {
        var core = try Self.fetching()
        let end = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(930))
        #expect(end.contains(.measureStall(app: "news", launch: 1)))
        #expect(Self.terminations(end).isEmpty)
        let measured = try core.handle(.stallMeasured(app: "news", launch: 1, total: .seconds(25)), at: Self.at(930))
        #expect(measured.contains(.armTimer(Self.fetchWindow, deadline: Self.at(950))))
        #expect(
            Self.decisions(measured).contains(
                "Fetch window extended by 20s: the app could not run for 20s of it, waiting on memory or for a CPU."))
        _ = try core.handle(.completeFetch(app: "news", result: .newData), at: Self.at(945))
        #expect(core.state(of: "news") == .suspended)
    }

    /// The stall added to a window is at most one more window: an app stalled for longer is
    /// terminated (`fetchTimeout`) at twice its window.
    @Test func theAddedStallIsAtMostOneMoreWindow() throws {
        var core = try Self.fetching(baseline: .zero)
        _ = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(930))
        let first = try core.handle(.stallMeasured(app: "news", launch: 1, total: .seconds(30)), at: Self.at(930))
        #expect(first.contains(.armTimer(Self.fetchWindow, deadline: Self.at(960))))
        _ = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(960))
        #expect(core.state(of: "news") == .background)
        let second = try core.handle(.stallMeasured(app: "news", launch: 1, total: .seconds(100)), at: Self.at(960))
        #expect(Self.terminations(second) == [.fetchTimeout])
        #expect(
            Self.decisions(second).contains(
                "Fetch window not extended further: the app could not run for 1m40s of it, waiting on memory or for a CPU, and at most 30s is added."
            ))
        #expect(core.state(of: "news") == .notRunning)
    }

    /// A window in which the app did not stall ends at its length.
    @Test func aWindowWithoutStallEndsAtItsLength() throws {
        var core = try Self.fetching()
        _ = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(930))
        let measured = try core.handle(
            .stallMeasured(app: "news", launch: 1, total: .milliseconds(5050)), at: Self.at(930))
        #expect(Self.terminations(measured) == [.fetchTimeout])
    }

    /// Where the runtime cannot count the stall (it answers nil), the window ends at its length
    /// without asking again.
    @Test func anUncountedStallLeavesTheWindowAsItWas() throws {
        var core = try Self.fetching(baseline: nil)
        let end = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(930))
        #expect(!end.contains(.measureStall(app: "news", launch: 1)))
        #expect(Self.terminations(end) == [.fetchTimeout])
    }

    /// A measurement that never comes (the daemon restarted meanwhile) ends the window one second
    /// after its end.
    @Test func aMeasurementThatNeverComesEndsTheWindow() throws {
        var core = try Self.fetching()
        let end = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(930))
        #expect(end.contains(.armTimer(Self.fetchWindow, deadline: Self.at(931))))
        let after = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(931))
        #expect(!after.contains(.measureStall(app: "news", launch: 1)))
        #expect(Self.terminations(after) == [.fetchTimeout])
    }

    /// A measurement of an earlier launch of the app changes nothing.
    @Test func aMeasurementOfAnEarlierLaunchIsIgnored() throws {
        var core = try Self.fetching()
        _ = try core.handle(.timerFired(Self.fetchWindow), at: Self.at(930))
        let stale = try core.handle(.stallMeasured(app: "news", launch: 0, total: .seconds(25)), at: Self.at(930))
        #expect(stale.isEmpty)
        #expect(core.state(of: "news") == .background)
    }

    /// A push window is lengthened by the stall in it as a fetch window is.
    @Test func aPushWindowIsLengthenedByTheAppsOwnStall() throws {
        var core = try Self.fetching()
        let pushed = try core.handle(.push(target: .app("chat"), payload: Self.wake, id: nil), at: Self.at(10))
        #expect(pushed.contains(.measureStall(app: "chat", launch: 1)))
        _ = try core.handle(.stallMeasured(app: "chat", launch: 1, total: .zero), at: Self.at(10))
        let window = TimerID(app: "chat", kind: .pushWindow)
        _ = try core.handle(.timerFired(window), at: Self.at(40))
        let measured = try core.handle(.stallMeasured(app: "chat", launch: 1, total: .seconds(12)), at: Self.at(40))
        #expect(measured.contains(.armTimer(window, deadline: Self.at(52))))
        let ended = try core.handle(.timerFired(window), at: Self.at(52))
        let last = try core.handle(.stallMeasured(app: "chat", launch: 1, total: .seconds(12)), at: Self.at(52))
        #expect(Self.terminations(ended + last) == [.pushTimeout])
    }

    /// A core with `till`, which a USB device wakes: launched for it at 0 s, the runtime's first
    /// stall measurement saying `baseline`.
    static func accessoryWoken(baseline: Duration = .seconds(2)) throws -> Lifecycle {
        var till = AppPolicy(name: "till")
        till.accessories = [AccessoryMatch(subsystem: "usb")]
        var core = Lifecycle(policy: Policy(apps: [till]))
        let woken = try core.handle(.accessory(action: "add", properties: ["SUBSYSTEM": "usb"]), at: at(0))
        #expect(woken.contains(.measureStall(app: "till", launch: 1)))
        _ = try core.handle(.launched(app: "till", launch: 1), at: at(0))
        _ = try core.handle(.stallMeasured(app: "till", launch: 1, total: baseline), at: at(0))
        return core
    }

    static let accessoryWindow = TimerID(app: "till", kind: .accessoryWindow)

    /// An accessory window is lengthened by the stall in it as a fetch or push window is, and
    /// ends in `accessoryTimeout` once the added time is spent.
    @Test func anAccessoryWindowIsLengthenedByTheAppsOwnStall() throws {
        var core = try Self.accessoryWoken()
        let end = try core.handle(.timerFired(Self.accessoryWindow), at: Self.at(30))
        #expect(end.contains(.measureStall(app: "till", launch: 1)))
        #expect(Self.terminations(end).isEmpty)
        let measured = try core.handle(.stallMeasured(app: "till", launch: 1, total: .seconds(17)), at: Self.at(30))
        #expect(measured.contains(.armTimer(Self.accessoryWindow, deadline: Self.at(45))))
        #expect(
            Self.decisions(measured).contains(
                "Accessory window extended by 15s: the app could not run for 15s of it, waiting on memory or for a CPU."
            ))
        #expect(core.snapshot(of: "till", at: Self.at(30))?.windows.first?.end == Self.at(45))
        let ended = try core.handle(.timerFired(Self.accessoryWindow), at: Self.at(45))
        let last = try core.handle(.stallMeasured(app: "till", launch: 1, total: .seconds(17)), at: Self.at(45))
        #expect(Self.terminations(ended + last) == [.accessoryTimeout])
    }

    /// An accessory window that a new event starts again counts its stall from then: what the app
    /// stalled before is not added to the new window.
    @Test func anAccessoryWindowStartedAgainCountsItsStallAnew() throws {
        var core = try Self.accessoryWoken()
        let again = try core.handle(.accessory(action: "remove", properties: ["SUBSYSTEM": "usb"]), at: Self.at(20))
        #expect(again.contains(.measureStall(app: "till", launch: 1)))
        #expect(again.contains(.armTimer(Self.accessoryWindow, deadline: Self.at(50))))
        _ = try core.handle(.stallMeasured(app: "till", launch: 1, total: .seconds(12)), at: Self.at(20))
        _ = try core.handle(.timerFired(Self.accessoryWindow), at: Self.at(50))
        let measured = try core.handle(.stallMeasured(app: "till", launch: 1, total: .seconds(12)), at: Self.at(50))
        #expect(Self.terminations(measured) == [.accessoryTimeout])
    }
}
