/// Parsing and printing of the durations and sizes used in policies and scenarios.
///
/// Durations are written as a number followed by `ms`, `s`, `m` or `h` (`"500ms"`,
/// `"30s"`, `"10m"`, `"1h"`); a decimal number is allowed (`"1.5s"`). Sizes are a number
/// followed by `B`, `KiB`, `MiB`, `GiB` or `TiB` (also `K`, `M`, `G`, `T`, `KB`, `MB`,
/// `GB`, `TB`, which mean the binary units as well).
public enum DurationFormat {
    /// Parses a duration such as `"30s"`; returns `nil` when the text is not one.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingWhitespace()
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, millis) in units where trimmed.hasSuffix(suffix) {
            let number = String(trimmed.dropLast(suffix.count))
            // "ms" also ends in "s" and "m": make sure the remaining text is a number.
            guard let value = Double(number), value.isFinite, !number.isEmpty,
                number.first != "+", !number.contains("e"), !number.contains("E")
            else { continue }
            let total = (value * Double(millis)).rounded()
            guard total.magnitude < 9.2e15 else { return nil }
            return .milliseconds(Int64(total))
        }
        return nil
    }

    /// Prints a duration in the shortest exact form: `"30s"`, `"10m"`, `"1500ms"`, `"1h"`.
    public static func string(_ duration: Duration) -> String {
        let millis = duration.milliseconds
        if millis == 0 { return "0s" }
        if millis % 3_600_000 == 0 { return "\(millis / 3_600_000)h" }
        if millis % 60_000 == 0 { return "\(millis / 60_000)m" }
        if millis % 1000 == 0 { return "\(millis / 1000)s" }
        return "\(millis)ms"
    }

    /// Parses a size such as `"512MiB"` into bytes; returns `nil` when the text is not one.
    public static func parseSize(_ text: String) -> Int64? {
        let trimmed = text.trimmingWhitespace()
        let units: [(String, Int64)] = [
            ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
            ("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10),
            ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1),
        ]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            let number = String(trimmed.dropLast(suffix.count)).trimmingWhitespace()
            guard !number.isEmpty, number.first != "+", let value = Double(number), value.isFinite,
                !number.contains("e"), !number.contains("E")
            else { return nil }
            let total = (value * Double(factor)).rounded()
            guard total.magnitude < 9.2e18 else { return nil }
            return Int64(total)
        }
        return nil
    }

    /// Prints a size in the largest binary unit that keeps it readable: `"512MiB"`, `"1.5GiB"`.
    public static func sizeString(_ bytes: Int64) -> String {
        let units: [(String, Int64)] = [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        for (suffix, factor) in units where bytes.magnitude >= UInt64(factor) {
            if bytes % factor == 0 { return "\(bytes / factor)\(suffix)" }
            let value = Double(bytes) / Double(factor)
            let rounded = (value * 10).rounded() / 10
            return "\(rounded)\(suffix)"
        }
        return "\(bytes)B"
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
