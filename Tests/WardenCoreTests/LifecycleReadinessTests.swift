import Testing
import WardenCore

/// Readiness decided in one place: the runtime reports that a process runs (`launched`), and the
/// core decides from the app's `readiness` whether it is ready.
@Suite struct LifecycleReadinessTests {
    static func at(_ seconds: Int64) -> Instant { Instant(sinceOrigin: .seconds(seconds)) }

    static func core(readiness: Readiness) -> Lifecycle {
        var app = AppPolicy(name: "maps", readiness: readiness)
        app.backgroundModes = [.remoteNotification]
        return Lifecycle(policy: Policy(apps: [app]))
    }

    /// An immediate app opened by the user stays inactive until its process runs, then becomes active.
    @Test func anImmediateAppBecomesActiveWhenItsProcessRuns() throws {
        var core = Self.core(readiness: .immediate)
        _ = try core.handle(.open(app: "maps"), at: Self.at(0))
        #expect(core.state(of: "maps") == .inactive)
        let out = try core.handle(.launched(app: "maps", launch: 1), at: Self.at(2))
        #expect(core.state(of: "maps") == .active)
        #expect(
            out.contains { action in
                guard case .journal(let record) = action, case .analytics(.appStart) = record.kind else { return false }
                return true
            })
    }

    /// A notify app whose process runs stays inactive with its launch watchdog armed until it calls ready.
    @Test func aNotifyAppWaitsForItsOwnReadyCall() throws {
        var core = Self.core(readiness: .notify)
        _ = try core.handle(.open(app: "maps"), at: Self.at(0))
        let out = try core.handle(.launched(app: "maps", launch: 1), at: Self.at(1))
        #expect(core.state(of: "maps") == .inactive)
        #expect(!out.contains(.cancelTimer(TimerID(app: "maps", kind: .launchTimeout))))
        #expect(core.armedTimers().contains { $0.timer == TimerID(app: "maps", kind: .launchTimeout) })
        let ready = try core.handle(.ready(app: "maps"), at: Self.at(2))
        #expect(core.state(of: "maps") == .active)
        #expect(ready.contains(.cancelTimer(TimerID(app: "maps", kind: .launchTimeout))))
    }

    /// A report about an earlier launch changes nothing.
    @Test func aReportAboutAnEarlierLaunchIsIgnored() throws {
        var core = Self.core(readiness: .immediate)
        _ = try core.handle(.open(app: "maps"), at: Self.at(0))
        let out = try core.handle(.launched(app: "maps", launch: 7), at: Self.at(1))
        #expect(out.isEmpty)
        #expect(core.state(of: "maps") == .inactive)
    }

    /// A passive launch that becomes ready stays in background, and a later open makes it active.
    @Test func aPassiveLaunchStaysInBackgroundWhenReady() throws {
        var core = Self.core(readiness: .immediate)
        _ = try core.handle(
            .push(target: .app("maps"), payload: #"{"aps":{"content-available":1}}"#, id: nil), at: Self.at(0))
        _ = try core.handle(.launched(app: "maps", launch: 1), at: Self.at(1))
        #expect(core.state(of: "maps") == .background)
        _ = try core.handle(.open(app: "maps"), at: Self.at(2))
        #expect(core.state(of: "maps") == .active)
    }
}
