/// Pressure stall information (PSI) for one resource, as in `memory.pressure` or
/// `/proc/pressure/memory`.
///
/// `some` is the share of time at least one task stalled, `full` the share all did at once.
public struct PressureStall: Sendable, Hashable {
    /// One line of a PSI file.
    public struct Line: Sendable, Hashable {
        /// Percent of the last 10 seconds spent stalled.
        public var avg10: Double
        /// Percent of the last 60 seconds spent stalled.
        public var avg60: Double
        /// Percent of the last 300 seconds spent stalled.
        public var avg300: Double
        /// Total stall time in microseconds since boot or group creation.
        public var total: UInt64

        /// Makes a line from its parts.
        public init(avg10: Double, avg60: Double, avg300: Double, total: UInt64) {
            self.avg10 = avg10
            self.avg60 = avg60
            self.avg300 = avg300
            self.total = total
        }
    }

    /// Some tasks stalled.
    public var some: Line
    /// All non-idle tasks stalled at once (absent for CPU on older kernels: then all zero).
    public var full: Line

    /// Makes pressure figures from their parts.
    public init(some: Line, full: Line) {
        self.some = some
        self.full = full
    }

    /// Parses a PSI file: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0" and a "full" line.
    public static func parse(_ text: String, path: String) throws(CgroupError) -> PressureStall {
        var some: Line?
        var full = Line(avg10: 0, avg60: 0, avg300: 0, total: 0)
        for (index, line) in text.split(separator: "\n").enumerated() {
            let fields = line.split(separator: " ")
            guard let kind = fields.first, kind == "some" || kind == "full" else {
                throw .malformed(
                    "line \(index + 1) (\"\(line)\")", path: path, detail: "a line must begin with \"some\" or \"full\""
                )
            }
            var values: [Substring: Substring] = [:]
            for field in fields.dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1)
                if pair.count == 2 { values[pair[0]] = pair[1] }
            }
            guard let avg10 = values["avg10"].flatMap({ Double($0) }),
                let avg60 = values["avg60"].flatMap({ Double($0) }),
                let avg300 = values["avg300"].flatMap({ Double($0) }),
                let total = values["total"].flatMap({ UInt64($0) })
            else {
                throw .malformed(
                    "line \(index + 1) (\"\(line)\")", path: path,
                    detail: "expected avg10=, avg60=, avg300= percentages and total= microseconds")
            }
            let parsed = Line(avg10: avg10, avg60: avg60, avg300: avg300, total: total)
            if kind == "some" { some = parsed } else { full = parsed }
        }
        guard let some else {
            throw .malformed("pressure figures", path: path, detail: "the \"some\" line is missing")
        }
        return PressureStall(some: some, full: full)
    }
}
