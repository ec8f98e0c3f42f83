import FoundationEssentials
public import WardenCore

extension Explanation {
    /// An explanation from the app's journal entries and the core's outlook: what happened,
    /// oldest first, with a separator line before each launch, then what comes next.
    ///
    /// `entries` may include records about no single app (`JournalEntry.systemApp`): the
    /// screen, policy reloads and daemon starts and stops are told where they fall. `keep` is
    /// how many of the newest sentences of the history are given before the outlook.
    public init(app: String, state: AppState, entries: [JournalEntry], outlook: [String], keep: Int = 100) {
        var sentences: [String] = []
        for entry in entries {
            sentences += Self.sentences(for: entry)
        }
        self.init(app: app, state: AppInfo.State(state), sentences: Array(sentences.suffix(keep)) + outlook)
    }

    /// What one entry says in `explain`; nothing for messages, statuses and what concerns no one.
    static func sentences(for entry: JournalEntry) -> [String] {
        switch entry.event {
        case .stateChange(.notRunning, let to, let because):
            return [
                "── launched at \(timestamp(entry.wallTimeMillis)) ──",
                "Went from notRunning to \(to.rawValue): \(because).",
            ]
        case .stateChange(let from, let to, let because):
            return ["Went from \(from.rawValue) to \(to.rawValue): \(because)."]
        case .decision(let text):
            return [text]
        case .analytics(.appTerminated(let reason)):
            return ["Terminated at \(timestamp(entry.wallTimeMillis)): \(reason.rawValue)."]
        case .memoryKill(let report):
            return killSentences(report)
        case .system(.screenLocked):
            return ["The screen was locked at \(timestamp(entry.wallTimeMillis))."]
        case .system(.screenUnlocked):
            return ["The screen was unlocked at \(timestamp(entry.wallTimeMillis))."]
        case .system(.policyReloaded(let added, let removed, let changed)):
            return [
                "The policy was reloaded at \(timestamp(entry.wallTimeMillis)) (added: \(list(added)); removed: \(list(removed)); changed: \(list(changed)))."
            ]
        case .system(.daemonStarted(_, let readopted)):
            return [
                "appwarden started at \(timestamp(entry.wallTimeMillis))"
                    + (readopted.isEmpty ? "." : ", re-adopting \(readopted.joined(separator: ", ")).")
            ]
        case .system(.daemonStopped(let leftRunning)):
            return [
                "appwarden stopped at \(timestamp(entry.wallTimeMillis))"
                    + (leftRunning.isEmpty ? "." : ", leaving \(leftRunning.joined(separator: ", ")) running.")
            ]
        case .analytics, .message, .status, .system(.pressureChanged), .input, .unknown:
            return []
        }
    }

    /// The memory killer's choice in words: the figures, the band, every other candidate.
    public static func killSentences(_ report: MemoryKillReport) -> [String] {
        let size = DurationFormat.sizeString
        var sentences: [String]
        if let figures = report.figures {
            sentences = [
                "Killed for memory at level \(report.level.rawValue): \(size(figures.availableBytes)) available of \(size(figures.totalBytes))\(swapClause(figures)); \(criticalClause(figures))."
            ]
        } else {
            sentences = [
                "Killed for memory at level \(report.level.rawValue), as reported by the kernel's pressure signal."
            ]
        }
        if let tookRoom = report.tookRoom {
            sentences.append(
                "It \(tookRoom.clause), and gave back \(givenBack(report)); the killer takes an app that takes the room of its last kill first."
            )
        } else {
            sentences.append(
                report.band == .overFairShare
                    ? "It was over its fair share and gave back \(givenBack(report)); the killer takes an app over its fair share first."
                    : "It was in the \(report.band) band and gave back \(givenBack(report)); the killer takes the \(report.band) band first."
            )
        }
        if report.others.isEmpty {
            sentences.append("No other app was a candidate.")
        }
        for other in report.others {
            let figure =
                other.reclaimable == other.footprint
                ? size(other.footprint) : "\(size(other.footprint)), a kill gives back \(size(other.reclaimable))"
            sentences.append("Not chosen: \(other.app) (\(other.band), \(figure)): \(other.reason).")
        }
        if report.unlisted > 0 {
            sentences.append(
                "Not chosen either: \(report.unlisted) more \(report.unlisted == 1 ? "app" : "apps"), later in the kill order."
            )
        }
        return sentences
    }

    /// What a kill for memory gave back: "225.6MiB"; where part of the victim was in swap, which
    /// its death frees only at the RAM a compressed copy takes, "80.1MiB at once (a footprint of
    /// 225.6MiB, 160.2MiB of it in swap)" (a report of an earlier daemon, which did not count
    /// that apart: "225.6MiB (160.2MiB of it in swap)").
    public static func givenBack(_ report: MemoryKillReport) -> String {
        let size = DurationFormat.sizeString(report.footprint)
        guard report.swapped > 0 else { return size }
        guard report.reclaimable != report.footprint else {
            return "\(size) (\(DurationFormat.sizeString(report.swapped)) of it in swap)"
        }
        return
            "\(DurationFormat.sizeString(report.reclaimable)) at once (a footprint of \(size), \(DurationFormat.sizeString(report.swapped)) of it in swap)"
    }

    /// "warning below 256MiB (ends at 320MiB), critical below 128MiB (ends at 192MiB)": each
    /// level's enter threshold and, where known, its exit threshold, as `top`, the log and
    /// `explain` word them.
    public static func thresholdsClause(
        warningEnter: Int64, warningExit: Int64?, criticalEnter: Int64, criticalExit: Int64?
    ) -> String {
        "\(levelClause("warning", enter: warningEnter, exit: warningExit)), "
            + levelClause("critical", enter: criticalEnter, exit: criticalExit)
    }

    /// The thresholds of `figures` in the words of `thresholdsClause`.
    public static func thresholdsClause(_ figures: MemoryFigures) -> String {
        thresholdsClause(
            warningEnter: figures.warningEnterBytes, warningExit: figures.warningExitBytes,
            criticalEnter: figures.criticalEnterBytes, criticalExit: figures.criticalExitBytes)
    }

    /// "critical below 128MiB (ends at 192MiB)", the critical part of `thresholdsClause`.
    public static func criticalClause(_ figures: MemoryFigures) -> String {
        levelClause("critical", enter: figures.criticalEnterBytes, exit: figures.criticalExitBytes)
    }

    private static func levelClause(_ level: String, enter: Int64, exit: Int64?) -> String {
        let size = DurationFormat.sizeString
        return "\(level) below \(size(enter))" + (exit.map { " (ends at \(size($0)))" } ?? "")
    }

    /// ", and swap could still free 200MiB (stall 12.5%)" where the device has swap.
    public static func swapClause(_ figures: MemoryFigures) -> String {
        guard let headroom = figures.swapHeadroomBytes else { return "" }
        let stall = figures.stallPercent.map { " (memory stall \($0)%)" } ?? ""
        return ", and swap could still free \(DurationFormat.sizeString(headroom))\(stall)"
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// The exact millisecond in UTC: `2026-11-23T03:22:07.045Z`.
    public static func timestamp(_ millis: Int64) -> String {
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let fraction = millis - seconds * 1000
        var format = Date.ISO8601FormatStyle()
        format.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(format)
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return String(whole.dropLast()) + "." + padded + "Z"
    }
}
