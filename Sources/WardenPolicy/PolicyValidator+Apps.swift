import WardenCore

extension PolicyValidator {
    /// The keys of an `[apps.NAME]` table, timing sections aside.
    static let appKeys = [
        "command", "args", "env", "working_directory", "user", "background_modes", "fetch_interval",
        "background_refresh", "protected", "readiness", "status_source", "memory_max", "memory_high", "resources",
        "signals", "tasks_max", "accessories",
    ]

    /// Whether `name` can name an app or a resource: ASCII letters, digits, `-`, `_` and `.`, not
    /// empty, and not `.` or `..` (app names become cgroup directory names).
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name != ".", name != ".." else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "-" || scalar == "_" || scalar == "."
        }
    }

    private static let nameRule =
        "use only ASCII letters (a-z, A-Z), digits, \"-\", \"_\" and \".\" (and not \".\" or \"..\" alone), because the name becomes a directory name"

    /// `[resources.NAME]` tables.
    mutating func resources(in root: LocatedTable) -> [String: ResourceDeclaration] {
        guard let resourcesValue = root["resources"] else { return [:] }
        guard let table = resourcesValue.table else {
            report(
                resourcesValue,
                "key \"\(resourcesValue.dottedKey)\" must hold one table per shared resource, such as [resources.camera]."
            )
            return [:]
        }
        var declarations: [String: ResourceDeclaration] = [:]
        for (name, value) in table.pairs {
            guard let resource = value.table else {
                report(value, "key \"\(value.dottedKey)\" must be a table, such as [\(value.dottedKey)].")
                continue
            }
            if !Self.isValidName(name) {
                report(value, "resource name \"\(name)\" is not valid: \(Self.nameRule).")
            }
            var declaration = ResourceDeclaration(name: name)
            for (key, entry) in resource.pairs {
                switch key {
                case "paths":
                    let expected =
                        "key \"\(entry.dottedKey)\" must be an array of absolute paths such as [\"/dev/video0\"]."
                    guard let elements = entry.array else {
                        report(entry, expected)
                        continue
                    }
                    for element in elements {
                        if let path = element.string, path.hasPrefix("/") {
                            declaration.paths.append(path)
                        } else if let path = element.string {
                            report(
                                element,
                                "key \"\(entry.dottedKey)\" must hold absolute paths such as \"/dev/video0\"; \"\(path)\" is not one."
                            )
                        } else {
                            report(element, expected)
                        }
                    }
                case "description":
                    if let text = entry.string {
                        declaration.description = text
                    } else {
                        report(entry, "key \"\(entry.dottedKey)\" must be a string.")
                    }
                default:
                    reportUnknown(entry, known: ["paths", "description"], place: "[\(resource.dottedKey)]")
                }
            }
            declarations[name] = declaration
        }
        return declarations
    }

    /// One `[apps.NAME]` table, with its settings resolved over the global ones.
    mutating func app(
        named name: String, value: LocatedValue, policy: Policy, global: ResolvedTiming
    ) -> (app: AppPolicy, facts: [String: LocatedValue])? {
        guard let table = value.table else {
            report(value, "key \"\(value.dottedKey)\" must be a table, such as [\(value.dottedKey)].")
            return nil
        }
        if !Self.isValidName(name) {
            report(value, "app name \"\(name)\" is not valid: \(Self.nameRule).")
        }
        if name.utf8.count > AppPolicy.nameLimit {
            report(
                value,
                "app name \"\(name)\" is \(name.utf8.count) characters long; an app name may have at most \(AppPolicy.nameLimit), because it names the app's memory-pressure socket (/run/appwarden-pressure/NAME.sock), and a Unix socket path must fit in 108 bytes."
            )
        }
        var app = AppPolicy(name: name, settings: policy.settings)
        app.tasksMax = policy.limits.tasksMax
        var facts: [String: LocatedValue] = [:]
        var fetchIntervalValue: LocatedValue?
        var memoryMaxValue: LocatedValue?
        var memoryHighValue: LocatedValue?
        let known = Self.appKeys + Self.timingSections + ["memory", "cpu"]
        for (key, entry) in table.pairs {
            switch key {
            case "command":
                app.command = nonEmptyString(entry, example: "/usr/bin/\(name)")
            case "args":
                app.args = strings(entry, example: "[\"--verbose\"]") ?? []
            case "env":
                app.env = environment(entry)
            case "working_directory":
                app.workingDirectory = absolutePath(entry, example: "/var/lib/\(name)")
            case "user":
                if let uid = entry.integer, uid >= 0 {
                    app.user = String(uid)
                } else if let user = entry.string, !user.isEmpty {
                    app.user = user
                } else {
                    report(
                        entry,
                        "key \"\(entry.dottedKey)\" must be a user name such as \"nobody\" or a numeric user id such as 65534."
                    )
                }
            case "background_modes":
                app.backgroundModes = backgroundModes(entry)
            case "fetch_interval":
                if let text = entry.string, let interval = FetchInterval(parsing: text) {
                    app.fetchInterval = interval
                    fetchIntervalValue = entry
                } else {
                    report(
                        entry,
                        "key \"\(entry.dottedKey)\" must be \"never\", \"minimum\" or a duration greater than zero such as \"15m\"."
                    )
                }
            case "background_refresh":
                app.backgroundRefresh = bool(entry) ?? app.backgroundRefresh
            case "protected":
                app.isProtected = bool(entry) ?? app.isProtected
            case "readiness":
                if let word = choice(entry, among: ["immediate", "notify"]) {
                    app.readiness = Readiness(rawValue: word)!
                }
            case "status_source":
                if let word = choice(entry, among: ["managed", "reported"]) {
                    app.statusSource = StatusSource(rawValue: word)!
                }
            case "memory_max":
                app.memoryMax = positiveSize(entry, example: "512MiB")
                memoryMaxValue = entry
            case "memory_high":
                app.memoryHigh = positiveSize(entry, example: "384MiB")
                memoryHighValue = entry
            case "resources":
                app.resources = resourceNames(entry, declared: policy.resources)
            case "signals":
                app.signals = signals(entry)
            case "tasks_max":
                app.tasksMax = taskLimit(entry) ?? app.tasksMax
            case "accessories":
                app.accessories = accessories(entry)
            default:
                if Self.timingSections.contains(key) || key == "memory" || key == "cpu" {
                    continue  // read below, as a whole
                } else if extraAppKeys.contains(key) {
                    facts[key] = entry
                } else {
                    reportUnknown(entry, known: known + extraAppKeys.sorted(), place: "an app table")
                }
            }
        }
        let resolved = timing(in: table, base: policy.settings, appName: name)
        checkTimingRules(resolved, global: global)
        app.settings = resolved.settings
        app.memory = appMemoryOverrides(in: table)
        app.cpu = cpuSettings(in: table, base: policy.cpu)

        if commandRequired && table["command"] == nil {
            report(
                file: table.file, line: table.line, key: LocatedValue.dotted(table.keyPath + ["command"]),
                "app \"\(name)\" has no command; every app in a policy file needs the program to run, such as command = \"/usr/bin/\(name)\"."
            )
        }
        if let fetchIntervalValue, app.fetchInterval != .never, !app.backgroundModes.contains(.fetch) {
            report(
                fetchIntervalValue,
                "key \"\(fetchIntervalValue.dottedKey)\" is set but the app does not have the \"fetch\" background mode; add \"fetch\" to background_modes or remove fetch_interval."
            )
        }
        if let high = app.memoryHigh, let max = app.memoryMax, high > max, let value = memoryHighValue ?? memoryMaxValue
        {
            report(
                value,
                "key \"\(LocatedValue.dotted(table.keyPath + ["memory_high"]))\" is \(DurationFormat.sizeString(high)) but must be at most memory_max (\(DurationFormat.sizeString(max)))."
            )
        }
        return (app, facts)
    }

    /// `env`: a table of strings.
    private mutating func environment(_ value: LocatedValue) -> [String: String] {
        guard let table = value.table else {
            report(value, "key \"\(value.dottedKey)\" must be a table of strings such as { LANG = \"C.UTF-8\" }.")
            return [:]
        }
        var environment: [String: String] = [:]
        for (name, entry) in table.pairs {
            if let text = entry.string {
                environment[name] = text
            } else {
                report(entry, "key \"\(entry.dottedKey)\" must be a string; environment values are text.")
            }
        }
        return environment
    }

    /// `signals`: a table from message kinds to signal names.
    private mutating func signals(_ value: LocatedValue) -> [String: Int32] {
        let kinds = SignalNames.messageKinds
        guard let table = value.table else {
            report(
                value,
                "key \"\(value.dottedKey)\" must be a table from message kinds to signal names such as { save_state = \"SIGUSR1\" }."
            )
            return [:]
        }
        var signals: [String: Int32] = [:]
        for (kind, entry) in table.pairs {
            guard kinds.contains(kind) else {
                let hint = KeySuggestion.closest(to: kind, among: kinds).map { " (did you mean \"\($0)\"?)" } ?? ""
                report(
                    entry,
                    "key \"\(entry.dottedKey)\" names an unknown message kind \"\(kind)\"\(hint); the known kinds are \(KeySuggestion.list(kinds, quoted: true))."
                )
                continue
            }
            guard let name = entry.string else {
                report(entry, "key \"\(entry.dottedKey)\" must be a signal name such as \"SIGUSR1\".")
                continue
            }
            guard let number = SignalNames.number(of: name) else {
                let hint =
                    KeySuggestion.closest(to: name, among: SignalNames.names).map { " (did you mean \"\($0)\"?)" } ?? ""
                report(
                    entry,
                    "key \"\(entry.dottedKey)\" names an unknown signal \"\(name)\"\(hint); the known signals are \(KeySuggestion.list(SignalNames.names, quoted: true))."
                )
                continue
            }
            signals[kind] = number
        }
        return signals
    }

    /// `background_modes`: an array of the accepted mode names; iOS modes appwarden does not
    /// implement are refused as unsupported.
    private mutating func backgroundModes(_ value: LocatedValue) -> Set<BackgroundMode> {
        let known = BackgroundMode.allCases.map(\.rawValue)
        guard let elements = value.array else {
            report(value, "key \"\(value.dottedKey)\" must be an array of background modes such as [\"fetch\"].")
            return []
        }
        var modes: Set<BackgroundMode> = []
        for element in elements {
            guard let text = element.string else {
                report(element, "key \"\(value.dottedKey)\" must be an array of background modes such as [\"fetch\"].")
                continue
            }
            if let mode = BackgroundMode(rawValue: text) {
                modes.insert(mode)
                continue
            }
            if BackgroundMode.unsupported.contains(text) {
                report(
                    element,
                    "key \"\(value.dottedKey)\" names the background mode \"\(text)\", which appwarden does not support; the accepted modes are \(KeySuggestion.list(known, quoted: true)) (background tasks need no mode)."
                )
                continue
            }
            let hint = KeySuggestion.closest(to: text, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
            report(
                element,
                "key \"\(value.dottedKey)\" names an unknown background mode \"\(text)\"\(hint); the accepted modes are \(KeySuggestion.list(known, quoted: true))."
            )
        }
        return modes
    }

    /// `resources`: names of resources declared under `[resources]`.
    private mutating func resourceNames(_ value: LocatedValue, declared: [String: ResourceDeclaration]) -> [String] {
        guard let names = strings(value, example: "[\"camera\"]") else { return [] }
        let elements = value.array ?? []
        var result: [String] = []
        for (index, name) in names.enumerated() {
            if declared[name] != nil {
                result.append(name)
                continue
            }
            let element = index < elements.count ? elements[index] : value
            var message = "key \"\(value.dottedKey)\" names the resource \"\(name)\", which is not declared"
            if let close = KeySuggestion.closest(to: name, among: declared.keys.sorted()) {
                message += " (did you mean \"\(close)\"?)"
            }
            message += "; declare it in a [resources.\(LocatedValue.dotted([name]))] table."
            report(file: element.file, line: element.line, key: value.dottedKey, message)
        }
        return result
    }
}
