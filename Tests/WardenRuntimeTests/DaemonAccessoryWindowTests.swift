import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

/// Rule 14 in the daemon on the manual clock: an app woken by an accessory shows its window in
/// the app list, and `explain` tells why it was woken and how the window ended.
@Suite struct DaemonAccessoryWindowTests {
    static let policy = """
        [apps.till]
        command = "/bin/till"
        accessories = [{ subsystem = "usb", vendor = "0x1234" }]
        [apps.remote]
        command = "/bin/remote"
        accessories = [{ tag = "remote" }]
        """

    static let scanner = [
        "SUBSYSTEM": "usb", "ID_VENDOR_ID": "1234", "ID_MODEL_ID": "5678", "DEVPATH": "/devices/usb1/1-1",
    ]

    /// The wall time of the newest journal entry of `app` that `matches`.
    static func wallTime(
        of app: String, in bed: WardenTestBed, where matches: (JournalEntry) -> Bool
    ) throws -> Int64 {
        let entry = bed.journal.entries(JournalQuery(app: app)).last(where: matches)
        return try #require(entry).wallTimeMillis
    }

    /// While an accessory window is open the app list gives it, with its end, the event's action
    /// and the device; a new event starts the window again and moves its end; once completed the
    /// window is gone.
    @Test func anOpenAccessoryWindowShowsInTheAppList() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(Self.policy)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.accessory(action: "add", properties: Self.scanner))
        await bed.settle()
        let woken = try #require(await bed.control.app(named: "till"))
        #expect(woken.state == .background)
        let wokenAt = try Self.wallTime(of: "till", in: bed) {
            if case .stateChange(.notRunning, .background, _) = $0.event { true } else { false }
        }
        #expect(
            woken.windows == [
                WindowInfo(kind: "accessory", endMillis: wokenAt + 30_000, action: "add", device: "usb 1234:5678")
            ])
        #expect(await bed.control.app(named: "remote")?.windows == [])

        await bed.advance(by: .seconds(10))
        _ = try await bed.daemon.perform(.accessory(action: "remove", properties: Self.scanner))
        await bed.settle()
        let again = try #require(await bed.control.app(named: "till")?.windows.first)
        #expect(again.endMillis == wokenAt + 40_000)
        #expect(again.action == "remove")

        _ = try await bed.daemon.perform(.completeAccessory(app: "till"))
        await bed.settle()
        let done = try #require(await bed.control.app(named: "till"))
        #expect(done.state == .suspended)
        #expect(done.windows == [])
        await bed.stop()
    }

    /// `explain` of an app woken by an accessory says which event woke it and, while the window
    /// is open, how long the app has to complete it; once the window ended without completion,
    /// that it did and that accessories no longer wake it. An app that completed is said to
    /// have been suspended for it.
    @Test func explainSaysWhyTheAppWasWokenAndHowTheWindowEnded() async throws {
        let bed = try await DaemonVirtualTimeTests.bed(Self.policy)
        defer { bed.removeStateDirectory() }
        _ = try await bed.daemon.perform(.accessory(action: "add", properties: Self.scanner))
        _ = try await bed.daemon.perform(.accessory(action: "add", properties: ["TAGS": ":remote:"]))
        await bed.settle()
        await bed.advance(by: .seconds(12))
        let open = try await bed.control.explain(app: "till").sentences
        #expect(
            open.contains(
                "Went from notRunning to background: launched in the background for accessory event add of device usb 1234:5678."
            ))
        #expect(
            open.contains(
                "An accessory window is open for accessory event add of device usb 1234:5678: the app has 18s left to call complete-accessory."
            ))

        _ = try await bed.daemon.perform(.completeAccessory(app: "remote"))
        await bed.advance(by: .seconds(18))
        #expect(await bed.control.app(named: "till")?.state == .notRunning)
        let ended = try await bed.control.explain(app: "till").sentences
        #expect(ended.contains("Went from background to notRunning: accessory window ended without completion."))
        #expect(ended.contains { $0.hasPrefix("Terminated at ") && $0.hasSuffix(": accessoryTimeout.") })
        #expect(!ended.contains { $0.hasPrefix("An accessory window is open") })
        #expect(
            ended.contains(
                "Fetch, push and accessory wakes leave it alone until the user opens it: the system terminated it (accessoryTimeout); [background] wake_after_system_termination = true would wake it."
            ))
        let remote = try await bed.control.explain(app: "remote").sentences
        #expect(
            remote.contains(
                "Went from notRunning to background: launched in the background for accessory event add of a device."))
        #expect(remote.contains("Went from background to suspended: its accessory event completed."))
        await bed.stop()
    }
}
