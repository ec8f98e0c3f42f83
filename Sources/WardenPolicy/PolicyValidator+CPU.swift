import WardenCore

extension PolicyValidator {
    /// The keys of `[cpu]` and `[apps.NAME.cpu]`.
    static let cpuKeys = [
        "foreground_weight", "background_weight", "activity_weight", "background_idle", "background_max",
        "background_limit", "background_limit_window", "foreground_io_weight", "background_io_weight",
        "activity_io_weight",
    ]

    /// `[cpu]` in `table` (the root, or an app's table under the key `cpu`), over `base`: the
    /// global settings for the root, the global ones for an app.
    mutating func cpuSettings(in table: LocatedTable, base: CPUSettings) -> CPUSettings {
        var settings = base
        guard let cpu = section("cpu", in: table, example: "background_weight = 1") else { return settings }
        var weights: [LocatedValue] = []
        var ioWeights: [LocatedValue] = []
        var activityWeight: LocatedValue?
        var activityIOWeight: LocatedValue?
        for (key, entry) in cpu.pairs {
            switch key {
            case "foreground_weight":
                if let weight = cpuWeight(entry, example: "10000") {
                    settings.foregroundWeight = weight
                    weights.append(entry)
                }
            case "background_weight":
                if let weight = cpuWeight(entry, example: "1") {
                    settings.backgroundWeight = weight
                    weights.append(entry)
                }
            case "activity_weight":
                if let weight = cpuWeight(entry, example: "100") {
                    settings.activityWeight = weight
                    activityWeight = entry
                }
            case "background_idle":
                settings.backgroundIdle = bool(entry) ?? settings.backgroundIdle
            case "background_max":
                settings.backgroundMaxPercent = cpuShare(
                    entry, otherwise: settings.backgroundMaxPercent, example: "50%")
            case "background_limit":
                settings.backgroundLimitPercent = cpuShare(
                    entry, otherwise: settings.backgroundLimitPercent, example: "80%")
            case "foreground_io_weight":
                if let weight = cpuWeight(entry, example: "1000") {
                    settings.foregroundIOWeight = weight
                    ioWeights.append(entry)
                }
            case "activity_io_weight":
                if let weight = cpuWeight(entry, example: "100") {
                    settings.activityIOWeight = weight
                    activityIOWeight = entry
                }
            case "background_io_weight":
                if let weight = cpuWeight(entry, example: "10") {
                    settings.backgroundIOWeight = weight
                    ioWeights.append(entry)
                }
            case "background_limit_window":
                settings.backgroundLimitWindow =
                    positiveDuration(entry, example: .seconds(60)) ?? settings.backgroundLimitWindow
            default:
                reportUnknown(entry, known: Self.cpuKeys, place: "[\(cpu.dottedKey)]")
            }
        }
        if settings.backgroundWeight > settings.foregroundWeight, let value = weights.last {
            report(
                value,
                "background_weight (\(settings.backgroundWeight)) must be at most foreground_weight (\(settings.foregroundWeight)): the foreground is served first."
            )
        }
        if settings.backgroundIOWeight > settings.foregroundIOWeight, let value = ioWeights.last {
            report(
                value,
                "background_io_weight (\(settings.backgroundIOWeight)) must be at most foreground_io_weight (\(settings.foregroundIOWeight)): the foreground is served first."
            )
        }
        if settings.activityIOWeight > settings.foregroundIOWeight {
            // An activity I/O weight this table does not set yields to a lower foreground one.
            if let value = activityIOWeight {
                report(
                    value,
                    "activity_io_weight (\(settings.activityIOWeight)) must be at most foreground_io_weight (\(settings.foregroundIOWeight)): the foreground is served first."
                )
            } else {
                settings.activityIOWeight = settings.foregroundIOWeight
            }
        }
        if settings.activityWeight > settings.foregroundWeight {
            // An activity weight this table does not set yields to a lower foreground weight.
            guard let value = activityWeight else {
                settings.activityWeight = settings.foregroundWeight
                return settings
            }
            report(
                value,
                "activity_weight (\(settings.activityWeight)) must be at most foreground_weight (\(settings.foregroundWeight)): the foreground is served first."
            )
        }
        return settings
    }

    /// A CPU or I/O weight: a whole number from 1 to 10000, cgroup v2's range.
    private mutating func cpuWeight(_ value: LocatedValue, example: String) -> Int? {
        if let weight = value.integer, (1...CPUSettings.largestWeight).contains(weight) { return weight }
        report(
            value,
            "key \"\(value.dottedKey)\" must be a whole number from 1 to \(CPUSettings.largestWeight), such as \(example)."
        )
        return nil
    }

    /// A share of the processors in whole percent of one CPU above zero (`"80%"`; `"200%"` is two
    /// cores), or `"none"` (nil); `otherwise` when the value is neither, which is reported.
    private mutating func cpuShare(_ value: LocatedValue, otherwise: Int?, example: String) -> Int? {
        if value.string == "none" { return nil }
        if let text = value.string, text.hasSuffix("%"), let percent = Int(text.dropLast()), percent > 0,
            percent <= 100_000
        {
            return percent
        }
        report(
            value,
            "key \"\(value.dottedKey)\" must be a share of one CPU in whole percent above 0%, such as \"\(example)\" (\"200%\" is two cores), or \"none\"."
        )
        return otherwise
    }
}
