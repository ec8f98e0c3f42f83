import Testing
import WardenCore
import WardenScenario

@Suite struct LifecycleAccessoryTests {
    static let scanner = AccessoryMatch(subsystem: "usb", vendor: "0x1234", product: "0x5678")
    static let scannerProperties = [
        "SUBSYSTEM": "usb", "ID_VENDOR_ID": "1234", "ID_MODEL_ID": "5678", "DEVPATH": "/devices/usb1/1-1",
    ]

    static func kiosk() -> Policy {
        var till = AppPolicy(name: "till")
        till.accessories = [Self.scanner]
        var remote = AppPolicy(name: "remote")
        remote.accessories = [AccessoryMatch(tag: "remote")]
        return Policy(apps: [till, remote, AppPolicy(name: "mail")])
    }

    static func event(_ action: String = "add") -> LifecycleEvent {
        .accessory(action: action, properties: Self.scannerProperties)
    }

    static func message(_ action: String = "add", window: Duration = .seconds(30)) -> AppMessage {
        .accessoryEvent(action: action, properties: Self.scannerProperties, window: window)
    }

    /// A match needs every field it names; ids compare as hex numbers; tags are read
    /// from udev's colon-separated lists; a match naming nothing matches nothing.
    @Test func aMatchNeedsEveryFieldItNames() {
        #expect(Self.scanner.matches(Self.scannerProperties))
        #expect(AccessoryMatch(vendor: "0X1234").matches(Self.scannerProperties))
        #expect(!AccessoryMatch(subsystem: "usb", product: "5679").matches(Self.scannerProperties))
        #expect(!AccessoryMatch(subsystem: "tty").matches(Self.scannerProperties))
        #expect(AccessoryMatch(tag: "remote").matches(["TAGS": ":seat:remote:"]))
        #expect(AccessoryMatch(tag: "remote").matches(["CURRENT_TAGS": ":remote:"]))
        #expect(!AccessoryMatch(tag: "remote").matches(["TAGS": ":remotes:"]))
        #expect(!AccessoryMatch().matches(Self.scannerProperties))
        // The kernel's own event, without udev: `PRODUCT` carries the ids without padding.
        #expect(AccessoryMatch(vendor: "0x04d8", product: "000a").matches(["PRODUCT": "4d8/a/100"]))
        #expect(!AccessoryMatch(vendor: "0x04d8").matches(["PRODUCT": "4d9/a/100"]))
    }

    /// A matching device added launches the stopped app passively (reason accessory) with the
    /// event and a window; no other app is woken.
    @Test func aMatchingDeviceLaunchesOnlyItsAppPassively() throws {
        var harness = Harness(Self.kiosk())
        let out = try harness.send(Self.event(), at: 0)
        #expect(out.contains(.spawn(app: "till", launch: 1, reason: .accessory, restore: false)))
        #expect(harness.analyticsEvents == [.appStartPassively(reason: .accessory)])
        #expect(harness.messages(to: "till") == [.stateChanged(.background), Self.message()])
        #expect(harness.state("till") == .background)
        #expect(harness.state("remote") == .notRunning)
        #expect(harness.state("mail") == .notRunning)
    }

    /// complete-accessory suspends the app at once; a later removal thaws it; a window that
    /// ends without completion terminates it with accessoryTimeout.
    @Test func theWindowCompletesOrTimesOut() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(Self.event(), at: 0)
        try harness.send(.completeAccessory(app: "till"), at: 1)
        #expect(harness.state("till") == .suspended)
        try harness.send(Self.event("remove"), at: 10)
        #expect(harness.state("till") == .background)
        #expect(harness.messages(to: "till").last == Self.message("remove"))
        harness.advance(to: 39.9)
        #expect(harness.terminations.isEmpty)
        harness.advance(to: 40)
        #expect(harness.terminations == ["till accessoryTimeout"])
        #expect(TerminationReason.accessoryTimeout.isSystemTermination)
    }

    /// The snapshot gives the open accessory window with its end, the event's action and the
    /// device; a new event starts it again, moving its end; completing it closes it.
    @Test func theSnapshotGivesTheOpenAccessoryWindow() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(Self.event(), at: 0)
        #expect(
            harness.core.snapshot(of: "till", at: harness.now)?.windows == [
                AppSnapshot.OpenWindow(
                    kind: .accessory, end: Harness.seconds(30), action: "add", device: "usb 1234:5678")
            ])
        #expect(harness.core.snapshot(of: "remote", at: harness.now)?.windows == [])
        try harness.send(Self.event("remove"), at: 10)
        #expect(
            harness.core.snapshot(of: "till", at: harness.now)?.windows == [
                AppSnapshot.OpenWindow(
                    kind: .accessory, end: Harness.seconds(40), action: "remove", device: "usb 1234:5678")
            ])
        #expect(
            harness.decisions("till").contains(
                "Accessory event remove of device usb 1234:5678 received in the open accessory window, which starts again (30s)."
            ))
        try harness.send(.completeAccessory(app: "till"), at: 11)
        #expect(harness.core.snapshot(of: "till", at: harness.now)?.windows == [])
    }

    /// An app in a push window that an accessory wakes too is in both, push first, each with its
    /// own end; an event without ids or path names no device.
    @Test func theSnapshotGivesEveryOpenWindowInOrder() throws {
        var chat = AppPolicy(name: "chat", backgroundModes: [.remoteNotification])
        chat.accessories = [AccessoryMatch(tag: "remote")]
        var harness = Harness(Policy(apps: [chat]))
        try harness.send(.push(target: .app("chat"), payload: #"{"aps":{"content-available":1}}"#, id: nil), at: 0)
        try harness.send(.accessory(action: "change", properties: ["TAGS": ":remote:"]), at: 5)
        #expect(
            harness.core.snapshot(of: "chat", at: harness.now)?.windows == [
                AppSnapshot.OpenWindow(kind: .push, end: Harness.seconds(30)),
                AppSnapshot.OpenWindow(kind: .accessory, end: Harness.seconds(35), action: "change", device: nil),
            ])
        #expect(
            harness.decisions("chat").contains(
                "Kept awake in background for accessory event change of a device, for an accessory window of 30s."))
    }

    /// A wake journals which event woke the app: launched for it, or thawed for it.
    @Test func theWakeSaysWhichEventWokeTheApp() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(Self.event(), at: 0)
        try harness.send(.completeAccessory(app: "till"), at: 1)
        try harness.send(Self.event("remove"), at: 10)
        let changes = harness.journal.compactMap { record -> String? in
            guard record.app == "till", case .stateChange(let from, let to, let because) = record.kind else {
                return nil
            }
            return "\(from) → \(to): \(because)"
        }
        #expect(
            changes == [
                "notRunning → background: launched in the background for accessory event add of device usb 1234:5678",
                "background → suspended: its accessory event completed",
                "suspended → background: woken for accessory event remove of device usb 1234:5678",
            ])
    }

    /// Completing without an open window is a conflict with a sentence.
    @Test func completingWithoutAWindowIsAConflict() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(.open(app: "till"), at: 0)
        #expect(throws: LifecycleError.self) { try harness.send(.completeAccessory(app: "till"), at: 1) }
    }

    /// An app in the foreground gets the event with no window and is not throttled.
    @Test func aForegroundAppGetsTheEventWithoutAWindow() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(.open(app: "till"), at: 0)
        for second in 1...5 { try harness.send(Self.event(), at: Double(second)) }
        #expect(harness.messages(to: "till").filter { $0 == Self.message(window: .zero) }.count == 5)
        #expect(harness.deadline("till", .accessoryWindow) == nil)
    }

    /// A force-quit app is not woken by its accessory, nor one the system terminated.
    @Test func noWakeAfterAForceQuitOrASystemTermination() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(.open(app: "till"), at: 0)
        try harness.send(.forceQuit(app: "till"), at: 1)
        harness.advance(to: 20)
        try harness.send(Self.event(), at: 20)
        #expect(harness.state("till") == .notRunning)
        #expect(
            harness.decisions("till").contains {
                $0.hasPrefix("Accessory event add of device usb 1234:5678 dropped: the app was force-quit")
            })

        var timedOut = Harness(Self.kiosk())
        try timedOut.send(Self.event(), at: 0)
        timedOut.advance(to: 30)
        #expect(timedOut.terminations == ["till accessoryTimeout"])
        try timedOut.send(Self.event(), at: 40)
        #expect(timedOut.state("till") == .notRunning)
    }

    /// At most push.max_per_hour wakes in an hour, pushes and accessories together; the
    /// next slot frees an hour after the first wake.
    @Test func wakesBeyondTheHourlyLimitAreDropped() throws {
        var harness = Harness(Self.kiosk())
        for wake in 0..<3 {
            try harness.send(Self.event(), at: Double(wake * 100))
            try harness.send(.completeAccessory(app: "till"), at: Double(wake * 100 + 1))
        }
        try harness.send(Self.event(), at: 400)
        #expect(harness.state("till") == .suspended)
        #expect(
            harness.decisions("till").contains { $0.hasSuffix("3 wakes this hour; the next slot frees in 53m20s.") })
        try harness.send(Self.event(), at: 3600)
        #expect(harness.state("till") == .background)
    }

    /// A wake that memory cannot take is dropped, as a fetch is skipped.
    @Test func aWakeUnderMemoryPressureIsDropped() throws {
        var harness = Harness(Self.kiosk())
        try harness.send(.memorySample(available: 50 << 20, total: 1000 << 20), at: 0)
        #expect(harness.core.memoryLevel >= .warning)
        try harness.send(Self.event(), at: 1)
        #expect(harness.state("till") == .notRunning)
        #expect(
            harness.decisions("till").contains {
                $0.hasPrefix("Accessory event dropped for memory: memory pressure is")
            })
    }

    /// The step text of an accessory event is its verb, action and properties as sorted JSON.
    @Test func anAccessoryEventIsWrittenAsAStep() {
        let text = LifecycleEvent.accessory(action: "add", properties: ["TAGS": ":a\"b:", "SUBSYSTEM": "usb"])
            .stepText { "\($0)" }
        #expect(text == #"accessory add {"SUBSYSTEM":"usb","TAGS":":a\"b:"}"#)
        #expect(LifecycleEvent.completeAccessory(app: "till").stepText { "\($0)" } == "till complete-accessory")
    }
}

extension Harness {
    /// The decisions journaled for `app`, in order.
    fileprivate func decisions(_ app: String) -> [String] {
        journal.compactMap { record in
            guard record.app == app, case .decision(let text) = record.kind else { return nil }
            return text
        }
    }
}
