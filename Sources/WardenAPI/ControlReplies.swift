public import WardenCore

/// The JSON bodies of successful answers of the control API that are not an `AppInfo`,
/// a list of journal entries, an `Explanation` or `Health`.
public enum ControlReplies {
    /// A verb or call that has no answer beyond success: `{"ok": true}`.
    public struct Done: Codable, Sendable, Equatable {
        public var ok: Bool
        public init(ok: Bool = true) { self.ok = ok }
    }

    /// `begin-task`: the new task's id and the budget left, milliseconds (absent while the app
    /// is in the foreground, where no budget runs).
    public struct TaskBegun: Codable, Sendable, Equatable {
        public var id: Int
        public var remainingMillis: Int64?
        public init(id: Int, remainingMillis: Int64?) {
            self.id = id
            self.remainingMillis = remainingMillis
        }
    }

    /// `begin-activity`: the new activity's id.
    public struct ActivityBegun: Codable, Sendable, Equatable {
        public var id: Int
        public init(id: Int) { self.id = id }
    }

    /// `time-remaining`: the budget left, milliseconds (absent while in the foreground).
    public struct TimeRemaining: Codable, Sendable, Equatable {
        public var remainingMillis: Int64?
        public init(remainingMillis: Int64?) { self.remainingMillis = remainingMillis }
    }

    /// `register-push`: the app's current device token.
    public struct DeviceToken: Codable, Sendable, Equatable {
        public var token: String
        public init(token: String) { self.token = token }
    }

    /// `push`: what became of it (`delivered`, `coalesced`, `pendingLaunch`, `waitingForMemory`, `notWoken`,
    /// `duplicate`).
    public struct PushAccepted: Codable, Sendable, Equatable {
        public var disposition: String
        public init(disposition: String) { self.disposition = disposition }
    }

    /// `policy reload`: a sentence describing the policy now in force, and what changed.
    public struct PolicyReloaded: Codable, Sendable, Equatable {
        public var message: String
        /// Apps the new policy adds.
        public var added: [String]
        /// Apps the new policy no longer declares (running ones are terminated gracefully).
        public var removed: [String]
        /// Apps whose settings changed, with what becomes of each.
        public var changed: [ChangedApp]
        /// The changes in sentences, one per app, as `appwarden policy reload` prints them and
        /// the journal records them.
        public var sentences: [String]
        /// What the new policy may still get wrong, as `appwarden policy check` says it: apps whose
        /// program cannot be found, and `[hooks]` commands the policy before it did not run.
        public var warnings: [String]

        public init(
            message: String, added: [String] = [], removed: [String] = [], changed: [ChangedApp] = [],
            sentences: [String] = [], warnings: [String] = []
        ) {
            self.message = message
            self.added = added
            self.removed = removed
            self.changed = changed
            self.sentences = sentences
            self.warnings = warnings
        }

        private enum CodingKeys: String, CodingKey {
            case message, added, removed, changed, sentences, warnings
        }

        /// Reads the reply; one without `warnings` (a daemon of an earlier version) has none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                message: try container.decode(String.self, forKey: .message),
                added: try container.decode([String].self, forKey: .added),
                removed: try container.decode([String].self, forKey: .removed),
                changed: try container.decode([ChangedApp].self, forKey: .changed),
                sentences: try container.decode([String].self, forKey: .sentences),
                warnings: try container.decodeIfPresent([String].self, forKey: .warnings) ?? [])
        }
    }

    /// An app a reload changed: the policy keys that differ and the outcome (`notRunning`,
    /// `appliedNow`, `atNextLaunch` or `restarted`).
    public struct ChangedApp: Codable, Sendable, Equatable {
        public var name: String
        public var keys: [String]
        public var outcome: String

        public init(name: String, keys: [String], outcome: String) {
            self.name = name
            self.keys = keys
            self.outcome = outcome
        }
    }
}

extension ControlReplies.PolicyReloaded {
    /// The answer for a reload whose difference the core computed.
    public init(message: String, diff: PolicyDiff) {
        self.init(
            message: message, added: diff.added, removed: diff.removed,
            changed: diff.changed.map {
                ControlReplies.ChangedApp(name: $0.name, keys: $0.keys, outcome: $0.outcome.rawValue)
            },
            sentences: diff.sentences)
    }
}
