/// What a policy reload changes: the apps added, removed and changed, and what becomes of the
/// running apps among them.
///
/// The core computes it once, in `policyChanged`, journals it (one decision per line, under
/// `appwarden`) and answers the reload with it; `appwarden policy reload` prints it.
public struct PolicyDiff: Sendable, Equatable {
    /// Apps the new policy declares and the old one did not, in the new policy's order.
    public var added: [String]
    /// Apps the old policy declared and the new one does not, in the old policy's order.
    public var removed: [String]
    /// Apps in both whose settings differ, in the new policy's order.
    public var changed: [AppChange]
    /// Removed apps that were running: they are terminated gracefully (`policyRemoved`).
    public var removedRunning: [String]

    public init(added: [String] = [], removed: [String] = [], changed: [AppChange] = [], removedRunning: [String] = [])
    {
        self.added = added
        self.removed = removed
        self.changed = changed
        self.removedRunning = removedRunning
    }

    /// One app whose settings differ between two policies.
    public struct AppChange: Sendable, Equatable {
        public var name: String
        /// The policy keys that differ, as the policy file names them (`command`, `args`, …).
        public var keys: [String]
        /// What becomes of the app.
        public var outcome: Outcome

        public init(name: String, keys: [String], outcome: Outcome) {
            self.name = name
            self.keys = keys
            self.outcome = outcome
        }
    }

    /// What a reload does to a changed app.
    public enum Outcome: String, Sendable, Equatable {
        /// Not running: its next launch uses the new settings.
        case notRunning
        /// Running, and only settings the core applies at once changed (fetch interval, timing,
        /// protection, memory limits, …): it keeps running under them.
        case appliedNow
        /// Running, and how it is launched changed (command, arguments, environment, user, task
        /// limit): it keeps its process, and its next launch uses the new settings.
        case atNextLaunch
        /// Running, how it is launched changed and the reload asked for restarts: it is
        /// terminated now (`policyChanged`) and, if it was in the foreground, opened again.
        case restarted
    }

    /// The keys of an app's policy that shape its process: a change to one of them takes
    /// effect only when the app is launched again.
    public static let launchKeys: Set<String> = [
        "command", "args", "env", "working_directory", "user", "tasks_max",
    ]

    /// Compares two policies. `running` says which apps of the old policy run now; `restart`
    /// whether running apps whose launch settings changed are restarted. `launchedWith` gives the
    /// entry a running app's process was launched with, when known: its launch settings are
    /// compared with that entry rather than the old policy's, so that a change an earlier reload
    /// left for the next launch still counts until the app is launched again.
    public init(
        from old: Policy, to new: Policy, running: (String) -> Bool, restart: Bool,
        launchedWith: (String) -> AppPolicy? = { _ in nil }
    ) {
        let oldApps = Dictionary(old.apps.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(new.apps.map(\.name))
        self.init()
        var seen: Set<String> = []
        for app in new.apps where seen.insert(app.name).inserted {
            guard let before = oldApps[app.name] else {
                added.append(app.name)
                continue
            }
            var keys = Self.changedKeys(before, app)
            if running(app.name), let launched = launchedWith(app.name) {
                let pending = Self.changedKeys(launched, app).filter(Self.launchKeys.contains)
                keys = keys.filter { !Self.launchKeys.contains($0) || pending.contains($0) }
                keys += pending.filter { !keys.contains($0) }
            }
            guard !keys.isEmpty else { continue }
            let outcome: Outcome
            if !running(app.name) {
                outcome = .notRunning
            } else if keys.contains(where: Self.launchKeys.contains) {
                outcome = restart ? .restarted : .atNextLaunch
            } else {
                outcome = .appliedNow
            }
            changed.append(AppChange(name: app.name, keys: keys, outcome: outcome))
        }
        var gone: Set<String> = []
        for app in old.apps where !newNames.contains(app.name) && gone.insert(app.name).inserted {
            removed.append(app.name)
            if running(app.name) { removedRunning.append(app.name) }
        }
    }

    /// Whether the reload changes no app.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty }

    /// The diff in sentences, one per app: what the reload printed and journaled.
    public var sentences: [String] {
        guard !isEmpty else { return ["No app was added, removed or changed."] }
        var lines: [String] = []
        for name in added {
            lines.append("Added \(name): not running until it is opened or woken.")
        }
        for name in removed {
            lines.append(
                removedRunning.contains(name)
                    ? "Removed \(name): it was running and is terminated gracefully."
                    : "Removed \(name).")
        }
        for change in changed {
            let keys = change.keys.joined(separator: ", ")
            let what =
                switch change.outcome {
                case .notRunning: "it is not running; its next launch uses the new settings."
                case .appliedNow: "it keeps running under the new settings."
                case .atNextLaunch:
                    "it keeps running its current process; it is relaunched with the new settings at its next launch."
                case .restarted:
                    "it is restarted now with the new settings (terminated, and opened again if it was in the foreground)."
                }
            lines.append("Changed \(change.name) (\(keys)): \(what)")
        }
        return lines
    }

    /// The policy keys whose values differ between two declarations of one app.
    static func changedKeys(_ old: AppPolicy, _ new: AppPolicy) -> [String] {
        var keys: [String] = []
        func compare(_ key: String, _ same: Bool) { if !same { keys.append(key) } }
        compare("command", old.command == new.command)
        compare("args", old.args == new.args)
        compare("env", old.env == new.env)
        compare("working_directory", old.workingDirectory == new.workingDirectory)
        compare("user", old.user == new.user)
        compare("background_modes", old.backgroundModes == new.backgroundModes)
        compare("fetch_interval", old.fetchInterval == new.fetchInterval)
        compare("background_refresh", old.backgroundRefresh == new.backgroundRefresh)
        compare("protected", old.isProtected == new.isProtected)
        compare("readiness", old.readiness == new.readiness)
        compare("status_source", old.statusSource == new.statusSource)
        compare("memory_max", old.memoryMax == new.memoryMax)
        compare("memory_high", old.memoryHigh == new.memoryHigh)
        compare("memory.foreground_limit", old.memory.foregroundLimit == new.memory.foregroundLimit)
        compare("memory.background_limit", old.memory.backgroundLimit == new.memory.backgroundLimit)
        compare("memory.fair_share", old.memory.fairShare == new.memory.fairShare)
        compare("memory.compress_suspended", old.memory.compressSuspended == new.memory.compressSuspended)
        compare("resources", old.resources == new.resources)
        compare("signals", old.signals == new.signals)
        compare("tasks_max", old.tasksMax == new.tasksMax)
        compare("timing", old.settings == new.settings)
        return keys
    }
}
