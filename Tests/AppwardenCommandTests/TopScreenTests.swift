import Testing
import WardenAPI

@testable import appwarden

@Suite struct TopScreenTests {
    static let snapshot = TopSnapshot(
        apps: [
            AppInfo(
                name: "mail", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"),
                footprintBytes: 100 * 1024 * 1024, swappedBytes: 60 * 1024 * 1024,
                band: .init(rawValue: "suspended"), timeRemainingMillis: 593_000, nextWakeMillis: 1_000_000 + 890_000),
            AppInfo(
                name: "camera", state: .init(rawValue: "active"), status: .init(rawValue: "foreground"),
                footprintBytes: 50 * 1024 * 1024,
                band: .init(rawValue: "foreground"), heldResources: ["camera"]),
            AppInfo(name: "chat", state: .init(rawValue: "notRunning"), status: .init(rawValue: "unknown")),
        ],
        device: DeviceInfo(
            pressure: "warning", availableBytes: 300 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024,
            thresholds: DeviceInfo.Thresholds(
                warningEnterBytes: 400 * 1024 * 1024, warningExitBytes: 500 * 1024 * 1024,
                criticalEnterBytes: 100 * 1024 * 1024, criticalExitBytes: 200 * 1024 * 1024),
            recentKills: [
                KillInfo(
                    app: "maps", reason: "memoryPressure", footprintBytes: 900 * 1024 * 1024, wallTimeMillis: 990_000)
            ]),
        nowMillis: 1_000_000, socket: "/run/appwarden.sock", problem: nil)

    /// A frame has exactly the terminal's height in lines, none wider than its width, and shows
    /// each app's state, footprint, the part of it in swap, band, time left, next wake and held
    /// resources, the memory against its thresholds, the level and the last kill.
    @Test func frameFillsTheTerminalAndShowsAppsDeviceAndKills() {
        let lines = TopScreen.render(Self.snapshot, width: 100, height: 20, color: false)
        #expect(lines.count == 20)
        #expect(lines.allSatisfy { $0.count <= 100 })
        let text = lines.joined(separator: "\n")
        #expect(text.contains("300MiB available of 1GiB (29%)   level warning") || text.contains("level warning"))
        #expect(text.contains("critical below 100MiB"))
        let mail = lines.first { $0.hasPrefix("mail") } ?? ""
        #expect(
            mail.contains("suspended") && mail.contains("100MiB") && mail.contains("9m53s")
                && mail.contains("in 14m50s"))
        let header = lines.first { $0.hasPrefix("APP") } ?? ""
        let swappedColumn = header.firstRange(of: "SWAPPED").map {
            header.distance(from: header.startIndex, to: $0.lowerBound)
        }
        let swappedCell = mail.firstRange(of: "60MiB").map { mail.distance(from: mail.startIndex, to: $0.lowerBound) }
        #expect(swappedColumn != nil && swappedColumn == swappedCell)
        let camera = lines.first { $0.hasPrefix("camera") } ?? ""
        #expect(camera.hasSuffix("camera") && camera.contains("active"))
        #expect(lines.contains { $0.contains("maps") && $0.contains("memoryPressure") && $0.contains("900MiB") })
        #expect(!text.contains("\u{1B}"))
    }

    /// The CPU column gives each app's class and its CPU use since the previous reading, worked
    /// out from the CPU times of the two readings; an app without both shows its class alone.
    @Test func theCPUColumnShowsTheClassAndTheUseSinceTheLastReading() {
        func app(_ name: String, _ cpuClass: String, millis: Int64?) -> AppInfo {
            AppInfo(
                name: name, state: .init(rawValue: cpuClass == "foreground" ? "active" : "background"),
                status: .init(rawValue: cpuClass), cpuClass: cpuClass, cpuTimeMillis: millis)
        }
        let before = [app("maps", "foreground", millis: 10_000), app("sync", "background", millis: 2_000)]
        let after = [
            app("maps", "foreground", millis: 10_950), app("sync", "background", millis: 2_020),
            app("mail", "background", millis: 300),
        ]
        let percents = TopSnapshot.cpuPercents(of: after, at: 2_000, after: before, at: 1_000)
        #expect(percents == ["maps": 95, "sync": 2])
        var snapshot = Self.snapshot
        snapshot.apps = after
        snapshot.cpuPercents = percents
        let lines = TopScreen.render(snapshot, width: 120, height: 20, color: false)
        #expect(lines.contains { $0.hasPrefix("maps") && $0.contains("fg 95%") })
        #expect(lines.contains { $0.hasPrefix("sync") && $0.contains("bg 2%") })
        #expect(lines.contains { $0.hasPrefix("mail") && $0.contains(" bg ") && !$0.contains("%") })
    }

    /// A narrow, short terminal cuts lines to its width and lists as many apps as fit, then
    /// how many more there are.
    @Test func smallTerminalCutsLinesAndCountsTheAppsLeftOut() {
        var many = Self.snapshot
        many.apps = (1...30).map {
            AppInfo(name: "app\($0)", state: .init(rawValue: "suspended"), status: .init(rawValue: "background"))
        }
        let lines = TopScreen.render(many, width: 30, height: 12, color: false)
        #expect(lines.count == 12)
        #expect(lines.allSatisfy { $0.count <= 30 })
        #expect(lines.contains { $0.hasPrefix("… ") && $0.contains("more apps") })
        #expect(lines.contains { $0.hasPrefix("app1 ") })
    }

    /// With colour on, states and the level carry ANSI colours and every cut line ends its
    /// colour; the visible text is the same as without colour.
    @Test func colourAddsEscapesWithoutChangingTheVisibleText() {
        let plain = TopScreen.render(Self.snapshot, width: 60, height: 20, color: false)
        let colored = TopScreen.render(Self.snapshot, width: 60, height: 20, color: true)
        #expect(colored.joined().contains("\u{1B}[36m"))
        #expect(colored.map(Self.strip) == plain)
    }

    /// NO_COLOR, a dumb or missing TERM, or output that is not a terminal turn colour off.
    @Test func colourFollowsTermAndNoColor() {
        #expect(TopScreen.wantsColor(environment: ["TERM": "xterm-256color"], outputIsTerminal: true))
        #expect(!TopScreen.wantsColor(environment: ["TERM": "xterm", "NO_COLOR": "1"], outputIsTerminal: true))
        #expect(!TopScreen.wantsColor(environment: ["TERM": "dumb"], outputIsTerminal: true))
        #expect(!TopScreen.wantsColor(environment: [:], outputIsTerminal: true))
        #expect(!TopScreen.wantsColor(environment: ["TERM": "xterm"], outputIsTerminal: false))
    }

    /// A daemon that cannot be read is named on the screen instead of the figures going stale silently.
    @Test func unreachableDaemonIsNamedOnTheScreen() {
        var broken = Self.snapshot
        broken.problem = "Cannot reach the daemon at /run/appwarden.sock: gone."
        let lines = TopScreen.render(broken, width: 80, height: 10, color: false)
        #expect(lines[1].hasPrefix("Cannot reach the daemon"))
    }

    static func strip(_ line: String) -> String {
        var result = ""
        var escape = false
        for character in line {
            if escape {
                if character.isLetter { escape = false }
            } else if character == "\u{1B}" {
                escape = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
