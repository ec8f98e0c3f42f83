import WardenCore

extension PolicyValidator {
    /// Timing settings and the values that set them explicitly, by `section.key`.
    struct ResolvedTiming {
        var settings: TimingSettings
        var explicit: [String: LocatedValue] = [:]
    }

    /// The duration keys of each timing section and where they go in `TimingSettings`.
    static var durationFields: [String: [(key: String, path: WritableKeyPath<TimingSettings, Duration>)]] {
        [
            "background": [
                ("grace", \.background.grace), ("task_budget", \.background.taskBudget),
                ("expiration_warning", \.background.expirationWarning),
            ],
            "fetch": [
                ("window", \.fetch.window), ("coalesce", \.fetch.coalesce),
                ("minimum_interval", \.fetch.minimumInterval), ("maximum_interval", \.fetch.maximumInterval),
            ],
            "push": [("window", \.push.window)],
            "watchdog": [("interval", \.watchdog.interval)],
            "termination": [("grace", \.termination.grace)],
            "launch": [("timeout", \.launch.timeout)],
            "restoration": [("crash_window", \.restoration.crashWindow)],
        ]
    }

    /// The timing sections, in the order the reference lists them.
    static let timingSections = ["background", "fetch", "push", "watchdog", "termination", "launch", "restoration"]

    /// The keys of the global `[memory]` table.
    static let memoryKeys =
        [
            "warning_enter", "warning_exit", "critical_enter", "critical_exit", "kill_foreground", "warning_interval",
            "stall_critical", "stall_before_kill", "victim_exit_wait", "make_room",
            "kill_order",
        ] + appMemoryKeys

    /// The keys of `[memory]` that an app's `[apps.NAME.memory]` table may set for itself.
    static let appMemoryKeys = ["foreground_limit", "background_limit", "fair_share", "compress_suspended"]

    /// The keys a timing section takes.
    static func keys(ofSection section: String) -> [String] {
        var keys = durationFields[section]?.map(\.key) ?? []
        if section == "push" { keys += ["max_per_hour", "max_payload_bytes"] }
        if section == "background" { keys += ["wake_after_system_termination", "max_activities", "activity_limit"] }
        return keys
    }

    /// Reads the timing sections of a policy's root (`appName` nil) or of one app's table,
    /// starting from `base`, and checks the rules that tie settings together.
    mutating func timing(in table: LocatedTable, base: TimingSettings, appName: String?) -> ResolvedTiming {
        var resolved = ResolvedTiming(settings: base)
        let defaults = TimingSettings()
        for section in Self.timingSections + ["memory"] {
            guard let sectionValue = table[section] else { continue }
            guard let sectionTable = sectionValue.table else {
                report(
                    sectionValue,
                    "key \"\(sectionValue.dottedKey)\" must be a table, such as [\(sectionValue.dottedKey)].")
                continue
            }
            if section == "memory" {
                memoryTiming(sectionTable, into: &resolved, isApp: appName != nil)
                continue
            }
            let fields = Self.durationFields[section] ?? []
            for (key, value) in sectionTable.pairs {
                if let field = fields.first(where: { $0.key == key }) {
                    if let duration = positiveDuration(value, example: defaults[keyPath: field.path]) {
                        resolved.settings[keyPath: field.path] = duration
                        resolved.explicit["\(section).\(key)"] = value
                    }
                } else if section == "background" && key == "wake_after_system_termination" {
                    if let flag = bool(value) {
                        resolved.settings.background.wakeAfterSystemTermination = flag
                        resolved.explicit["background.wake_after_system_termination"] = value
                    }
                } else if section == "background" && key == "max_activities" {
                    if value.string == "none" {
                        resolved.settings.background.maxActivities = nil
                        resolved.explicit["background.max_activities"] = value
                    } else if let number = value.integer, number >= 1 {
                        resolved.settings.background.maxActivities = number
                        resolved.explicit["background.max_activities"] = value
                    } else {
                        report(
                            value,
                            "key \"\(value.dottedKey)\" must be an integer of at least 1, such as 2, or \"none\".")
                    }
                } else if section == "background" && key == "activity_limit" {
                    if value.string == "none" {
                        resolved.settings.background.activityLimit = nil
                        resolved.explicit["background.activity_limit"] = value
                    } else if let text = value.string, let duration = DurationFormat.parse(text), duration > .zero {
                        resolved.settings.background.activityLimit = duration
                        resolved.explicit["background.activity_limit"] = value
                    } else {
                        report(value, "key \"\(value.dottedKey)\" must be a duration such as \"1h\", or \"none\".")
                    }
                } else if section == "push" && key == "max_per_hour" {
                    if let number = integer(value, atLeast: 1, example: "3") {
                        resolved.settings.push.maxPerHour = number
                        resolved.explicit["push.max_per_hour"] = value
                    }
                } else if section == "push" && key == "max_payload_bytes" {
                    if let bytes = positiveSize(value, example: "4KiB") {
                        if bytes > Int64(PushSettings.payloadLimitBytes) {
                            report(
                                value,
                                "key \"\(value.dottedKey)\" must be at most 64KiB (\(PushSettings.payloadLimitBytes) bytes): "
                                    + "a push is one request of the control API, whose body is at most that long.")
                        } else {
                            resolved.settings.push.maxPayloadBytes = Int(bytes)
                            resolved.explicit["push.max_payload_bytes"] = value
                        }
                    }
                } else {
                    reportUnknown(value, known: Self.keys(ofSection: section), place: "[\(sectionTable.dottedKey)]")
                }
            }
        }
        return resolved
    }

    /// `[memory]`: only `warning_interval` is a timing setting; an app's table may also set its
    /// own bounds (`appMemoryOverrides(in:)`). The global thresholds are read by
    /// `memorySettings(in:)`.
    private mutating func memoryTiming(_ table: LocatedTable, into resolved: inout ResolvedTiming, isApp: Bool) {
        for (key, value) in table.pairs {
            if key == "warning_interval" {
                if let duration = positiveDuration(value, example: .seconds(30)) {
                    resolved.settings.memoryWarningInterval = duration
                    resolved.explicit["memory.warning_interval"] = value
                }
            } else if isApp && Self.appMemoryKeys.contains(key) {
                continue  // read by appMemoryOverrides(in:)
            } else if isApp && Self.memoryKeys.contains(key) {
                report(
                    value,
                    "key \"\(value.dottedKey)\" cannot be set for one app; only \"warning_interval\", \"foreground_limit\", \"background_limit\", \"fair_share\" and \"compress_suspended\" can be set in [\(table.dottedKey)], the other memory settings apply to the whole device."
                )
            } else if isApp {
                reportUnknown(value, known: ["warning_interval"] + Self.appMemoryKeys, place: "[\(table.dottedKey)]")
            }
        }
    }

    /// Checks the rules between timing settings. For an app, only pairs where the app sets at
    /// least one side are checked (the global check covers the rest); the message goes to the
    /// value the file sets, the later of the two when it sets both.
    mutating func checkTimingRules(_ resolved: ResolvedTiming, global: ResolvedTiming?) {
        let settings = resolved.settings
        let explicit = resolved.explicit
        func located(_ key: String) -> LocatedValue? { explicit[key] ?? global?.explicit[key] }

        if settings.background.expirationWarning >= settings.background.taskBudget,
            explicit["background.expiration_warning"] != nil || explicit["background.task_budget"] != nil
        {
            let warning = DurationFormat.string(settings.background.expirationWarning)
            let budget = DurationFormat.string(settings.background.taskBudget)
            if let value = explicit["background.expiration_warning"] ?? located("background.expiration_warning") {
                report(
                    value,
                    "key \"\(value.dottedKey)\" is \(warning) but must be shorter than task_budget (\(budget)), so that open tasks are warned before the budget ends."
                )
            } else if let value = located("background.task_budget") {
                report(
                    value,
                    "key \"\(value.dottedKey)\" is \(budget) but must be longer than expiration_warning (\(warning)), so that open tasks are warned before the budget ends."
                )
            }
        }
        if settings.fetch.maximumInterval < settings.fetch.minimumInterval,
            explicit["fetch.maximum_interval"] != nil || explicit["fetch.minimum_interval"] != nil
        {
            let maximum = DurationFormat.string(settings.fetch.maximumInterval)
            let minimum = DurationFormat.string(settings.fetch.minimumInterval)
            if let value = explicit["fetch.maximum_interval"] ?? located("fetch.maximum_interval") {
                report(
                    value,
                    "key \"\(value.dottedKey)\" is \(maximum) but must be at least minimum_interval (\(minimum)).")
            } else if let value = located("fetch.minimum_interval") {
                report(
                    value, "key \"\(value.dottedKey)\" is \(minimum) but must be at most maximum_interval (\(maximum))."
                )
            }
        }
    }

    /// The global `[memory]` thresholds and `kill_foreground`, with their ordering checked.
    mutating func memorySettings(in root: LocatedTable) -> MemorySettings {
        var memory = MemorySettings()
        guard let table = root["memory"]?.table else { return memory }
        var explicit: [String: LocatedValue] = [:]
        let thresholds: [(key: String, path: WritableKeyPath<MemorySettings, MemoryThreshold>)] = [
            ("warning_enter", \.warningEnter), ("warning_exit", \.warningExit),
            ("critical_enter", \.criticalEnter), ("critical_exit", \.criticalExit),
        ]
        for (key, value) in table.pairs {
            if let field = thresholds.first(where: { $0.key == key }) {
                if let threshold = threshold(value, example: MemorySettings()[keyPath: field.path]) {
                    memory[keyPath: field.path] = threshold
                    explicit[key] = value
                }
            } else if key == "kill_foreground" {
                if let flag = bool(value) { memory.killForeground = flag }
            } else if key == "compress_suspended" {
                if let flag = bool(value) { memory.compressSuspended = flag }
            } else if key == "make_room" {
                if let flag = bool(value) { memory.makeRoom = flag }
            } else if let field = Self.boundFields.first(where: { $0.key == key }) {
                memory[keyPath: field.global] = bound(value, allowingNone: true)
            } else if key == "stall_critical" {
                memory.stallCritical = stallShare(value, fallback: MemorySettings.defaultStallCritical)
            } else if key == "stall_before_kill" {
                memory.stallBeforeKill = stallShare(value, fallback: MemorySettings.defaultStallBeforeKill)
            } else if key == "victim_exit_wait" {
                if let wait = victimExitWait(value) { memory.victimExitWait = wait }
            } else if key == "kill_order" {
                if let order = killOrder(value) { memory.killOrder = order }
            } else if key != "warning_interval" {
                reportUnknown(value, known: Self.memoryKeys, place: "[\(table.dottedKey)]")
            }
        }
        checkOrder(
            low: ("warning_enter", memory.warningEnter), high: ("warning_exit", memory.warningExit),
            blameHigh: true, explicit: explicit,
            reason: "the warning level ends only once available memory is back at or above its exit threshold")
        checkOrder(
            low: ("critical_enter", memory.criticalEnter), high: ("critical_exit", memory.criticalExit),
            blameHigh: true, explicit: explicit,
            reason: "the critical level ends only once available memory is back at or above its exit threshold")
        checkOrder(
            low: ("critical_enter", memory.criticalEnter), high: ("warning_enter", memory.warningEnter),
            blameHigh: false, explicit: explicit,
            reason: "critical pressure starts with less available memory than warning does")
        return memory
    }

    /// The bounds `[memory]` sets for every app and `[apps.NAME.memory]` for one.
    static var boundFields:
        [(
            key: String, global: WritableKeyPath<MemorySettings, MemoryThreshold?>,
            app: WritableKeyPath<AppMemoryOverrides, MemoryThreshold?>
        )]
    {
        [
            ("foreground_limit", \.foregroundLimit, \.foregroundLimit),
            ("background_limit", \.backgroundLimit, \.backgroundLimit),
            ("fair_share", \.fairShare, \.fairShare),
        ]
    }

    /// An app's own bounds from its `[apps.NAME.memory]` table.
    mutating func appMemoryOverrides(in table: LocatedTable) -> AppMemoryOverrides {
        var overrides = AppMemoryOverrides()
        guard let memory = table["memory"]?.table else { return overrides }
        for field in Self.boundFields {
            guard let value = memory[field.key] else { continue }
            overrides[keyPath: field.app] = bound(value, allowingNone: false)
        }
        if let value = memory["compress_suspended"] {
            overrides.compressSuspended = bool(value)
        }
        return overrides
    }

    /// A memory bound: a size greater than zero (`"300MiB"`) or a percentage of device memory
    /// greater than zero (`"40%"`); `"none"` for no bound where `allowingNone`.
    private mutating func bound(_ value: LocatedValue, allowingNone: Bool) -> MemoryThreshold? {
        if allowingNone, value.string?.trimmingBlanks() == "none" { return nil }
        let example = MemoryThreshold.percent(40)
        guard let threshold = threshold(value, example: example) else { return nil }
        let isZero =
            switch threshold {
            case .bytes(let bytes): bytes == 0
            case .percent(let percent): percent == 0
            }
        if isZero {
            report(
                value,
                "key \"\(value.dottedKey)\" must be greater than zero, such as \"300MiB\" or \"\(example)\"\(allowingNone ? ", or \"none\" for no bound" : "")."
            )
            return nil
        }
        return threshold
    }

    /// `victim_exit_wait`: a duration from zero (no wait) to `MemorySettings.maximumVictimExitWait`.
    private mutating func victimExitWait(_ value: LocatedValue) -> Duration? {
        let maximum = DurationFormat.string(MemorySettings.maximumVictimExitWait)
        guard let text = value.string, let wait = DurationFormat.parse(text), wait >= .zero,
            wait <= MemorySettings.maximumVictimExitWait
        else {
            report(
                value,
                "key \"\(value.dottedKey)\" must be a duration from \"0s\" (no wait) to \"\(maximum)\", such as \"1s\"."
            )
            return nil
        }
        return wait
    }

    /// `kill_order`: one of `KillOrder.spellings`.
    private mutating func killOrder(_ value: LocatedValue) -> KillOrder? {
        if let text = value.string, let order = KillOrder(rawValue: text.trimmingBlanks()) { return order }
        let allowed = KillOrder.spellings.map { "\"\($0)\"" }.joined(separator: " or ")
        report(value, "key \"\(value.dottedKey)\" must be \(allowed).")
        return nil
    }

    /// `stall_critical` and `stall_before_kill`: a percentage above zero (`"40%"`), or `"none"`.
    private mutating func stallShare(_ value: LocatedValue, fallback: Double) -> Double? {
        let text = value.string?.trimmingBlanks() ?? ""
        if text == "none" { return nil }
        if text.hasSuffix("%"), let percent = Double(String(text.dropLast()).trimmingBlanks()), percent > 0,
            percent <= 100
        {
            return percent
        }
        report(
            value,
            "key \"\(value.dottedKey)\" must be a percentage of time above 0% and at most 100%, such as \"\(Int(fallback))%\", or \"none\"."
        )
        return fallback
    }

    /// Reports when `low` is above `high`; thresholds of different kinds (a size and a
    /// percentage) cannot be compared without the device's memory and are not.
    private mutating func checkOrder(
        low: (key: String, threshold: MemoryThreshold), high: (key: String, threshold: MemoryThreshold),
        blameHigh: Bool, explicit: [String: LocatedValue], reason: String
    ) {
        let isOutOfOrder: Bool
        switch (low.threshold, high.threshold) {
        case (.bytes(let lowBytes), .bytes(let highBytes)): isOutOfOrder = highBytes < lowBytes
        case (.percent(let lowPercent), .percent(let highPercent)): isOutOfOrder = highPercent < lowPercent
        default: isOutOfOrder = false
        }
        guard isOutOfOrder else { return }
        let lowValue = explicit[low.key]
        let highValue = explicit[high.key]
        if let value = blameHigh ? (highValue ?? lowValue) : (lowValue ?? highValue) {
            let blamedIsHigh = value == highValue
            let own = blamedIsHigh ? high : low
            let other = blamedIsHigh ? low : high
            let relation = blamedIsHigh ? "at least" : "at most"
            report(
                value,
                "key \"\(value.dottedKey)\" is \(own.threshold) but must be \(relation) \(other.key) (\(other.threshold)): \(reason)."
            )
        }
    }
}
