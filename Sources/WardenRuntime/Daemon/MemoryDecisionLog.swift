import Logging
import WardenAPI
import WardenCore

/// The log lines of the memory decisions: a change of the pressure level and a kill for memory,
/// with the figures that decided them.
enum MemoryDecisionLog {
    /// Logs a change of the pressure level and a kill for memory with the figures that decided
    /// them: what was available, the thresholds, what the victim gives back. A kill is carried
    /// out before its records (`LifecycleAction.inCarryingOutOrder`) but logged here, in the core's order: after
    /// the change of level that led to it, in one line with the major page `faults` it cost.
    static func log(_ record: JournalRecord, faults: Int? = nil, to logger: Logger) {
        if let line = line(record, faults: faults) { logger.notice("\(line)") }
    }

    /// The log line of a change of the pressure level or a kill for memory; nil for other records.
    /// A kill's line ends with the major page `faults` the daemon took from the measurement that
    /// chose the victim to its kill, where counted.
    static func line(_ record: JournalRecord, faults: Int? = nil) -> String? {
        let size = DurationFormat.sizeString
        switch record.kind {
        case .system(.pressureChanged(let from, let to, let figures)):
            let measured =
                figures.map {
                    ": \(size($0.availableBytes)) available of \(size($0.totalBytes))\(Explanation.swapClause($0)); \(Explanation.thresholdsClause($0))"
                } ?? ""
            return "Memory pressure \(from.rawValue) → \(to.rawValue)\(measured)."
        case .memoryKill(let report):
            let measured =
                report.figures.map {
                    "; \(size($0.availableBytes)) available of \(size($0.totalBytes))\(Explanation.swapClause($0)), \(Explanation.criticalClause($0))"
                } ?? ""
            let waited =
                faults.map {
                    "; the daemon took \($0) major page fault\($0 == 1 ? "" : "s") since the measurement that chose it"
                } ?? ""
            let chosen = report.tookRoom.map { "it \($0.clause)" } ?? "\(report.band) band"
            return
                "Killed app \"\(record.app)\" for memory pressure: \(chosen), gives back \(Explanation.givenBack(report))\(measured)\(waited)."
        default:
            return nil
        }
    }
}
