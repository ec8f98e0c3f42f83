import Testing
import WardenAPI

@testable import appwarden

@Suite struct StatusTableTests {
    /// Spans are written in whole seconds, rounded up, with two digits after the largest unit.
    @Test func spansAreWholeSecondsWithTwoDigitsAfterTheLargestUnit() {
        let spans = [0, 1, 999, 59_000, 60_000, 61_000, 605_000, 898_001, 3_599_000, 3_600_000, 3_660_000, 7_500_000]
            .map { StatusCommand.span(Int64($0)) }
        #expect(
            spans == [
                "0s", "1s", "1s", "59s", "1m00s", "1m01s", "10m05s", "14m59s", "59m59s", "1h00m", "1h01m", "2h05m",
            ])
    }

    /// The table has a header and one row per app, its columns padded to the widest cell; the
    /// part of a footprint in swap has its own column, `-` where none is or the app is not running,
    /// and so has what a kill frees where that is less than the footprint; the CPU column gives the class and, for an app that runs code, the CPU time it used.
    @Test func theTableHasOneRowPerAppWithColumnsAligned() {
        let apps = [
            AppInfo(
                name: "mail", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"),
                footprintBytes: 100 * 1024 * 1024, swappedBytes: 60 * 1024 * 1024,
                reclaimableBytes: 60 * 1024 * 1024, band: .init(rawValue: "suspended"),
                timeRemainingMillis: 593_000, nextWakeMillis: 1_000_000 + 890_000, cpuClass: "background"),
            AppInfo(
                name: "maps", state: .init(rawValue: "active"), status: .init(rawValue: "foreground"),
                footprintBytes: 300 * 1024 * 1024, band: .init(rawValue: "foreground"), cpuClass: "foreground",
                cpuTimeMillis: 12_500),
            AppInfo(
                name: "chat", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown"),
                swappedBytes: 5 * 1024 * 1024),
        ]
        let lines = StatusCommand.table(apps, nowMillis: 1_000_000).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "APP   STATE       STATUS      FOOTPRINT  SWAPPED  KILL FREES  BAND        CPU       TIME LEFT  NEXT WAKE  TASKS",
                "mail  suspended   background  100MiB     60MiB    60MiB       suspended   bg        9m53s      in 14m50s  -",
                "maps  active      foreground  300MiB     -        -           foreground  fg 12.5s  -          -          -",
                "chat  notRunning  unknown     -          -        -           -           -         -          -          -",
            ])
    }

    /// An app in a fetch, push or accessory window has it noted in its state cell with the time
    /// left; an app in none shows its state alone.
    @Test func anOpenWindowIsNotedInTheStateCell() {
        let woken = AppInfo(
            name: "till", state: .init(rawValue: "background"), status: .init(rawValue: "background"),
            windows: [WindowInfo(kind: "accessory", endMillis: 1_012_000, action: "add", device: "usb 1234:5678")])
        #expect(StatusCommand.state(woken, nowMillis: 1_000_000) == "background (accessory window, 12s left)")
        let both = AppInfo(
            name: "news", state: .init(rawValue: "background"), status: .init(rawValue: "background"),
            windows: [WindowInfo(kind: "fetch", endMillis: 1_025_000), WindowInfo(kind: "push", endMillis: nil)])
        #expect(
            StatusCommand.state(both, nowMillis: 1_000_000) == "background (fetch window, 25s left; push window)")
        let idle = AppInfo(name: "mail", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"))
        #expect(StatusCommand.state(idle, nowMillis: 1_000_000) == "suspended")
        let lines = StatusCommand.table([woken, idle], nowMillis: 1_000_000).split(separator: "\n")
        #expect(lines[1].hasPrefix("till  background (accessory window, 12s left)  background"))
    }

    /// A name with letters beyond ASCII takes as many columns as it has characters, not bytes.
    @Test func namesBeyondASCIIAreAlignedByCharacters() {
        let apps = [
            AppInfo(name: "café", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown")),
            AppInfo(name: "maps", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown")),
        ]
        let lines = StatusCommand.table(apps, nowMillis: 0).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "APP   STATE       STATUS   FOOTPRINT  SWAPPED  KILL FREES  BAND  CPU  TIME LEFT  NEXT WAKE  TASKS",
                "café  notRunning  unknown  -          -        -           -     -    -          -          -",
                "maps  notRunning  unknown  -          -        -           -     -    -          -          -",
            ])
    }
}
