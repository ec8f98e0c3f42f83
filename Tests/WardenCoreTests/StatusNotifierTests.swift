import Testing
import WardenCore

final class RecordingObserver: AppStatusObserver {
    let label: String
    let log: Log

    final class Log {
        var entries: [String] = []
    }

    init(_ label: String, log: Log) {
        self.label = label
        self.log = log
    }

    func appStatusDidChange(app: String, to status: AppStatus) {
        log.entries.append("\(label): \(app) \(status)")
    }
}

@Suite struct StatusNotifierTests {
    /// Observers are called in registration order on every change, and not for a repeated status.
    @Test func observersAreCalledInRegistrationOrderOnChanges() {
        let log = RecordingObserver.Log()
        var notifier = StatusNotifier()
        notifier.addObserver(RecordingObserver("first", log: log))
        notifier.addObserver(RecordingObserver("second", log: log))
        notifier.publish(app: "mail", status: .foreground)
        notifier.publish(app: "mail", status: .foreground)
        notifier.publish(app: "mail", status: .background)
        #expect(
            log.entries == [
                "first: mail foreground", "second: mail foreground", "first: mail background",
                "second: mail background",
            ])
    }

    /// The current status can be read at any time; unknown before anything was published.
    @Test func currentStatusCanBeRead() {
        var notifier = StatusNotifier()
        #expect(notifier.status(of: "mail") == .unknown)
        notifier.publish(app: "mail", status: .foreground)
        #expect(notifier.isInForeground("mail"))
        #expect(!notifier.isInForeground("maps"))
        notifier.publish(app: "mail", status: .terminating)
        #expect(notifier.status(of: "mail") == .terminating)
    }

    /// Fed with the core's actions, the notifier sees the leaving app's change before the arriving app's.
    @Test func feedingTheCoresActionsKeepsTheirOrder() throws {
        let log = RecordingObserver.Log()
        var notifier = StatusNotifier()
        notifier.addObserver(RecordingObserver("o", log: log))
        var core = Lifecycle(policy: Policy(apps: [AppPolicy(name: "mail"), AppPolicy(name: "maps")]))
        notifier.apply(try core.handle(.open(app: "mail"), at: .zero))
        notifier.apply(try core.handle(.open(app: "maps"), at: Instant(sinceOrigin: .seconds(1))))
        #expect(log.entries == ["o: mail foreground", "o: mail background", "o: maps foreground"])
        #expect(notifier.status(of: "mail") == .background)
    }
}
