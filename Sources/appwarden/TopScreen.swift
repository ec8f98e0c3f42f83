import FoundationEssentials
import Glibc
import WardenAPI
import WardenCore

/// What one frame of `appwarden top` shows: the apps, the device, and when it was read.
struct TopSnapshot: Sendable, Equatable {
    var apps: [AppInfo]
    var device: DeviceInfo?
    /// Wall-clock time of the reading, milliseconds since the epoch.
    var nowMillis: Int64
    /// The daemon's socket, shown in the title.
    var socket: String
    /// Why the daemon could not be read, shown instead of stale figures.
    var problem: String?
    /// Each running app's CPU use since the previous reading, in percent of one CPU.
    var cpuPercents: [String: Int] = [:]

    /// `cpuPercents` of `apps` read at `nowMillis`, from the CPU times of `previous` read at
    /// `previousMillis`: only for apps whose launch ran code at both readings.
    static func cpuPercents(
        of apps: [AppInfo], at nowMillis: Int64, after previous: [AppInfo], at previousMillis: Int64
    ) -> [String: Int] {
        let elapsed = nowMillis - previousMillis
        guard elapsed > 0 else { return [:] }
        var before: [String: Int64] = [:]
        for app in previous { if let millis = app.cpuTimeMillis { before[app.name] = millis } }
        var percents: [String: Int] = [:]
        for app in apps {
            guard let now = app.cpuTimeMillis, let then = before[app.name], now >= then else { continue }
            percents[app.name] = Int((now - then) * 100 / elapsed)
        }
        return percents
    }
}

/// One frame of `appwarden top`: a pure function of a snapshot and the terminal's size.
///
/// The frame has exactly `height` lines, none wider than `width` columns: a title, the device's
/// memory, level and thresholds, the apps (as many as fit, then a line saying how many more),
/// and the last kills. With `color`, states and levels carry ANSI colours; without, the text is
/// plain.
enum TopScreen {
    static func render(_ snapshot: TopSnapshot, width: Int, height: Int, color: Bool) -> [String] {
        let width = max(width, 20)
        let height = max(height, 5)
        let paint = Painter(enabled: color)
        var top: [Line] = []
        let clock = clockString(snapshot.nowMillis)
        top.append(Line(paint.bold("appwarden top") + "  \(snapshot.socket)  \(clock)  (q quits)"))
        if let problem = snapshot.problem {
            top.append(Line(paint.red(problem)))
        }
        top += deviceLines(snapshot.device, paint: paint)
        top.append(Line(""))

        var bottom: [Line] = []
        let kills = snapshot.device?.recentKills ?? []
        if !kills.isEmpty {
            bottom.append(Line(""))
            bottom.append(Line(paint.bold("LAST KILLS")))
            for kill in kills.prefix(3) {
                bottom.append(
                    Line(
                        "  \(clockString(kill.wallTimeMillis))  \(kill.app)  \(paint.red(kill.reason))  "
                            + DurationFormat.sizeString(kill.footprintBytes)))
            }
        }

        var table = appTable(
            snapshot.apps, nowMillis: snapshot.nowMillis, cpuPercents: snapshot.cpuPercents, paint: paint)
        let room = height - top.count - bottom.count
        if room < 2 {
            bottom.removeAll()
        }
        let rows = max(0, height - top.count - bottom.count)
        if table.count > rows {
            let hidden = table.count - max(0, rows - 1)
            table = Array(table.prefix(max(0, rows - 1)))
            if rows > 0 { table.append(Line("… \(hidden) more apps (make the terminal taller)")) }
        }
        var lines = top + table
        lines += Array(repeating: Line(""), count: max(0, height - lines.count - bottom.count))
        lines += bottom
        return lines.prefix(height).map { $0.fitted(to: width, paint: paint) }
    }

    /// Available memory against the total, the level, and the four thresholds.
    static func deviceLines(_ device: DeviceInfo?, paint: Painter) -> [Line] {
        guard let device else { return [Line("Memory: not read yet.")] }
        let level = paint.level(device.pressure)
        var memory = "Memory: "
        if let available = device.availableBytes, let total = device.totalBytes, total > 0 {
            let percent = Int((Double(available) / Double(total) * 100).rounded())
            memory +=
                "\(DurationFormat.sizeString(available)) available of \(DurationFormat.sizeString(total)) (\(percent)%)"
        } else {
            memory += "not measured"
        }
        var lines = [Line(memory + "   level " + level)]
        if let limits = device.thresholds {
            let thresholds = Explanation.thresholdsClause(
                warningEnter: limits.warningEnterBytes, warningExit: limits.warningExitBytes,
                criticalEnter: limits.criticalEnterBytes, criticalExit: limits.criticalExitBytes)
            lines.append(Line("Thresholds: " + thresholds))
        }
        return lines
    }

    /// The apps' table: a header and one row per app, columns padded to their widest cell.
    static func appTable(
        _ apps: [AppInfo], nowMillis: Int64, cpuPercents: [String: Int] = [:], paint: Painter
    ) -> [Line] {
        let header = ["APP", "STATE", "FOOTPRINT", "SWAPPED", "BAND", "CPU", "TIME LEFT", "NEXT WAKE", "HELD"]
        var cells = [header]
        for app in apps {
            cells.append([
                app.name + (app.forceQuit ? " (force-quit)" : ""),
                app.state.rawValue,
                app.state == .notRunning ? "-" : DurationFormat.sizeString(app.footprintBytes),
                StatusCommand.swapped(app),
                app.band?.rawValue ?? "-",
                StatusCommand.cpuClass(app) + (cpuPercents[app.name].map { " \($0)%" } ?? ""),
                app.timeRemainingMillis.map(StatusCommand.span) ?? "-",
                app.nextWakeMillis.map { "in " + StatusCommand.span(max(0, $0 - nowMillis)) } ?? "-",
                app.heldResources.isEmpty ? "-" : app.heldResources.joined(separator: ","),
            ])
        }
        let widths = header.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        return cells.enumerated().map { row, values in
            let text = values.enumerated().map { column, cell -> String in
                let padded =
                    column == values.count - 1
                    ? cell : cell.padded(to: widths[column])
                if row == 0 { return paint.bold(padded) }
                return column == 1 ? paint.state(cell, padded: padded) : padded
            }
            return Line(text.joined(separator: "  "))
        }
    }

    /// `HH:MM:SS` in the local time zone.
    static func clockString(_ millis: Int64) -> String {
        var seconds = time_t(millis / 1000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "--:--:--" }
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
    }

    /// A line of text that may hold ANSI colour sequences (which take no columns).
    struct Line: Equatable {
        var text: String
        init(_ text: String) { self.text = text }

        /// The line cut to `width` visible columns; a cut line ends its colour.
        func fitted(to width: Int, paint: Painter) -> String {
            var visible = 0
            var result = ""
            var inEscape = false
            var cut = false
            for character in text {
                if inEscape {
                    result.append(character)
                    if character.isLetter { inEscape = false }
                    continue
                }
                if character == "\u{1B}" {
                    inEscape = true
                    result.append(character)
                    continue
                }
                if visible == width {
                    cut = true
                    break
                }
                result.append(character)
                visible += 1
            }
            return cut && paint.enabled ? result + Painter.reset : result
        }
    }

    /// ANSI colours, or nothing when colour is off.
    struct Painter: Equatable {
        var enabled: Bool
        static let reset = "\u{1B}[0m"

        func wrap(_ text: String, _ code: String) -> String {
            enabled ? "\u{1B}[\(code)m\(text)\(Self.reset)" : text
        }
        func bold(_ text: String) -> String { wrap(text, "1") }
        func red(_ text: String) -> String { wrap(text, "31") }

        /// A state's cell: active green, inactive and background yellow, suspended cyan, not running dim.
        func state(_ state: String, padded: String) -> String {
            switch state {
            case "active": wrap(padded, "32")
            case "inactive", "background": wrap(padded, "33")
            case "suspended": wrap(padded, "36")
            default: wrap(padded, "2")
            }
        }

        /// The pressure level: normal green, warning yellow, critical red.
        func level(_ level: String) -> String {
            switch level {
            case "normal": wrap(level, "32")
            case "warning": wrap(level, "33")
            default: wrap(level, "1;31")
            }
        }
    }

    /// Whether to draw in colour: not when `NO_COLOR` is set (to anything but an empty string),
    /// nor when `TERM` is unset or `dumb`, nor when the output is not a terminal.
    static func wantsColor(environment: [String: String], outputIsTerminal: Bool) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return outputIsTerminal
    }
}
