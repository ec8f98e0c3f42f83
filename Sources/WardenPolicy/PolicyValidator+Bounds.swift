import WardenCore

extension PolicyValidator {
    /// The keys of `[limits]`.
    static let limitKeys = ["tasks_max"]
    /// The keys of `[journal]`.
    static let journalKeys = ["keep", "max_entries"]
    /// The keys of `[logs]`.
    static let logKeys = ["max_size", "keep"]

    /// `[limits]`: bounds on each app's group beyond memory.
    mutating func limitSettings(in root: LocatedTable) -> LimitSettings {
        var limits = LimitSettings()
        guard let table = section("limits", in: root, example: "tasks_max = 512") else { return limits }
        for (key, entry) in table.pairs {
            switch key {
            case "tasks_max":
                limits.tasksMax = taskLimit(entry) ?? limits.tasksMax
            default:
                reportUnknown(entry, known: Self.limitKeys, place: "[limits]")
            }
        }
        return limits
    }

    /// `[journal]`: how much history the journal keeps.
    mutating func journalRetention(in root: LocatedTable) -> JournalRetention {
        var retention = JournalRetention()
        guard let table = section("journal", in: root, example: "keep = \"30d\"") else { return retention }
        for (key, entry) in table.pairs {
            switch key {
            case "keep":
                if entry.string == "forever" {
                    retention.keep = nil
                } else if let age = age(entry) {
                    retention.keep = age
                }
            case "max_entries":
                if entry.string == "unlimited" {
                    retention.maxEntries = nil
                } else if let count = integer(entry, atLeast: 1, example: "100000") {
                    retention.maxEntries = count
                }
            default:
                reportUnknown(entry, known: Self.journalKeys, place: "[journal]")
            }
        }
        return retention
    }

    /// `[logs]`: the size cap and rotation of each app's log file.
    mutating func appLogSettings(in root: LocatedTable) -> AppLogSettings {
        var logs = AppLogSettings()
        guard let table = section("logs", in: root, example: "max_size = \"1MiB\"") else { return logs }
        for (key, entry) in table.pairs {
            switch key {
            case "max_size":
                if let size = positiveSize(entry, example: "1MiB") {
                    if size < 4096 {
                        report(entry, "key \"\(entry.dottedKey)\" must be at least 4KiB, such as \"1MiB\".")
                    } else {
                        logs.maxSize = size
                    }
                }
            case "keep":
                if let count = entry.integer, (1...100).contains(count) {
                    logs.keep = count
                } else {
                    report(entry, "key \"\(entry.dottedKey)\" must be a whole number from 1 to 100, such as 3.")
                }
            default:
                reportUnknown(entry, known: Self.logKeys, place: "[logs]")
            }
        }
        return logs
    }

    /// `tasks_max`: a whole number from 1 to `TaskLimit.largest`, or `"max"`.
    mutating func taskLimit(_ value: LocatedValue) -> TaskLimit? {
        if value.string == "max" { return .unlimited }
        if let count = value.integer, (1...TaskLimit.largest).contains(count) { return .count(count) }
        report(
            value,
            "key \"\(value.dottedKey)\" must be a whole number from 1 to \(TaskLimit.largest), such as 512, or \"max\" for no limit."
        )
        return nil
    }

    /// An age for old entries: a number of days such as `"30d"`, or a duration such as `"12h"`.
    private mutating func age(_ value: LocatedValue) -> Duration? {
        let expected =
            "key \"\(value.dottedKey)\" must be an age greater than zero such as \"30d\" or \"12h\", or \"forever\"."
        guard let text = value.string else {
            report(value, expected)
            return nil
        }
        if text.hasSuffix("d"), let days = Int(text.dropLast()), days > 0, days <= 36_500 {
            return .seconds(Int64(days) * 86_400)
        }
        guard let duration = DurationFormat.parse(text), duration > .zero else {
            report(value, expected)
            return nil
        }
        return duration
    }

    /// The table of a global section, or nil (reported) when the key holds something else.
    mutating func section(_ name: String, in root: LocatedTable, example: String) -> LocatedTable? {
        guard let value = root[name] else { return nil }
        guard let table = value.table else {
            report(value, "key \"\(value.dottedKey)\" must be a table, such as [\(name)] with \(example).")
            return nil
        }
        return table
    }
}
