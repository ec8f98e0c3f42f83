/// Parsing and printing of the durations and sizes used in policies and scenarios.
///
/// A duration is one or more parts, each a number followed by `h`, `m`, `s` or `ms`, with the
/// units in that order and each at most once: `"500ms"`, `"30s"`, `"10m"`, `"1h30m"`,
/// `"15m5s"`, `"2h0m5s"`, `"1h0m1.25s"`. A part may be a decimal number (`"1.5m"`). This is
/// exactly what `string(_:)` prints, and what the simulator's trace prints for times, so every
/// printed duration can be read back. Sizes are a number followed by `B`, `KiB`, `MiB`, `GiB`
/// or `TiB` (also `K`, `M`, `G`, `T`, `KB`, `MB`, `GB`, `TB`, which mean the binary units as well).
public enum DurationFormat {
    /// The units of a duration's parts, largest first, with their length in milliseconds.
    static let durationUnits: [(suffix: String, millis: Double)] = [
        ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1),
    ]

    /// Parses a duration such as `"30s"` or `"1h30m"`; returns `nil` when the text is not one.
    ///
    /// A leading `-` makes the whole duration negative (callers that need a positive one say so).
    public static func parse(_ text: String) -> Duration? {
        var rest = Substring(text.trimmingWhitespace())
        var sign = 1.0
        if rest.first == "-" {
            sign = -1
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        // Each part's unit must come after the previous part's in `durationUnits`.
        var nextUnit = 0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, number.first != ".", number.last != ".", let value = Double(number),
                value.isFinite
            else { return nil }
            rest = rest.dropFirst(number.count)
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard
                let unit = durationUnits.indices.first(where: { $0 >= nextUnit && durationUnits[$0].suffix == letters })
            else { return nil }
            rest = rest.dropFirst(letters.count)
            total += value * durationUnits[unit].millis
            nextUnit = unit + 1
        }
        let millis = (sign * total).rounded()
        guard millis.magnitude < 9.2e15 else { return nil }
        return .milliseconds(Int64(millis))
    }

    /// Prints a duration in its largest units, as the trace prints times: `"30s"`, `"10m"`,
    /// `"1h30m"`, `"15m5s"`, `"2h0m5s"`, `"1.5s"`; below a second `"500ms"`; zero is `"0s"`.
    /// `parse(_:)` reads every printed form back.
    public static func string(_ duration: Duration) -> String {
        let millis = duration.milliseconds
        if millis == 0 { return "0s" }
        if millis < 0 { return "-" + string(.milliseconds(-millis)) }
        if millis < 1000 { return "\(millis)ms" }
        let hours = millis / 3_600_000
        let minutes = millis / 60_000 % 60
        let seconds = millis / 1000 % 60
        let fraction = millis % 1000
        var text = ""
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 || (hours > 0 && (seconds > 0 || fraction > 0)) { text += "\(minutes)m" }
        if seconds > 0 || fraction > 0 {
            if fraction == 0 {
                text += "\(seconds)s"
            } else {
                var digits = String(fraction)
                digits = String(repeating: "0", count: 3 - digits.count) + digits
                while digits.hasSuffix("0") { digits.removeLast() }
                text += "\(seconds).\(digits)s"
            }
        }
        return text
    }

    /// A time left or to wait, as a sentence says it: rounded up to whole seconds and printed in
    /// its largest units (`"40m51s"` for 40m50.867s, `"1s"` for 200ms; zero is `"0s"`).
    public static func roundedUp(_ duration: Duration) -> String {
        let millis = max(0, duration.milliseconds)
        return string(.seconds((millis + 999) / 1000))
    }

    /// Milliseconds as seconds with three decimals, such as `12.345` or `-0.250`.
    public static func secondsString(millis: Int64) -> String {
        let magnitude = millis.magnitude
        let fraction = String(magnitude % 1000)
        let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
        return (millis < 0 ? "-" : "") + "\(magnitude / 1000).\(padded)"
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
        for (suffix, factor) in sizeUnits where bytes.magnitude >= UInt64(factor) {
            if bytes % factor == 0 { return "\(bytes / factor)\(suffix)" }
            let value = Double(bytes) / Double(factor)
            let rounded = (value * 10).rounded() / 10
            return "\(rounded)\(suffix)"
        }
        return "\(bytes)B"
    }

    private static let sizeUnits: [(String, Int64)] = [
        ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
    ]
}
