import WardenCore

extension PolicyValidator {
    /// The keys of `[hooks]`.
    static let hookKeys = ["on_kill", "on_pressure", "timeout"]

    /// `[hooks]`: the commands run on kills and pressure changes, and how long they may run.
    mutating func hookSettings(in root: LocatedTable) -> HookSettings {
        var hooks = HookSettings()
        guard let table = section("hooks", in: root, example: "on_kill = \"/usr/local/bin/notify-kill\"") else {
            return hooks
        }
        for (key, entry) in table.pairs {
            switch key {
            case "on_kill":
                hooks.onKill = hookCommand(entry)
            case "on_pressure":
                hooks.onPressure = hookCommand(entry)
            case "timeout":
                if let timeout = positiveDuration(entry, example: .seconds(10)) {
                    if timeout > .seconds(3600) {
                        report(entry, "key \"\(entry.dottedKey)\" must be at most one hour, such as \"10s\".")
                    } else {
                        hooks.timeout = timeout
                    }
                }
            default:
                reportUnknown(entry, known: Self.hookKeys, place: "[hooks]")
            }
        }
        return hooks
    }

    /// A hook's command: a non-empty shell command line, run with `/bin/sh -c`.
    private mutating func hookCommand(_ value: LocatedValue) -> String? {
        let expected =
            "key \"\(value.dottedKey)\" must be a command line for /bin/sh such as \"/usr/local/bin/notify-kill\"."
        guard let text = value.string else {
            report(value, expected)
            return nil
        }
        guard !text.allSatisfy(\.isWhitespace) else {
            report(value, "key \"\(value.dottedKey)\" must not be empty; remove the key to run no hook.")
            return nil
        }
        guard !text.contains("\0") else {
            report(value, "key \"\(value.dottedKey)\" must not contain a NUL character.")
            return nil
        }
        return text
    }
}
