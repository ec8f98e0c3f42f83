import Foundation
import Testing
import WardenAPI
import WardenCore
import WardenRuntime
import WardenTesting

/// Rule 14 in the daemon on the manual clock: an app woken by an accessory shows its window in
/// the app list.
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
        let woken = try #require(await bed.daemon.app(named: "till"))
        #expect(woken.state == .background)
        let wokenAt = try Self.wallTime(of: "till", in: bed) {
            if case .stateChange(.notRunning, .background, _) = $0.event { true } else { false }
        }
        #expect(
            woken.windows == [
                WindowInfo(kind: "accessory", endMillis: wokenAt + 30_000, action: "add", device: "usb 1234:5678")
            ])
        #expect(await bed.daemon.app(named: "remote")?.windows == [])

        await bed.advance(by: .seconds(10))
        _ = try await bed.daemon.perform(.accessory(action: "remove", properties: Self.scanner))
        await bed.settle()
        let again = try #require(await bed.daemon.app(named: "till")?.windows.first)
        #expect(again.endMillis == wokenAt + 40_000)
        #expect(again.action == "remove")

        _ = try await bed.daemon.perform(.completeAccessory(app: "till"))
        await bed.settle()
        let done = try #require(await bed.daemon.app(named: "till"))
        #expect(done.state == .suspended)
        #expect(done.windows == [])
        await bed.stop()
    }
}
