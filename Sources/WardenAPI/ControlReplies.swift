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

    /// `push`: what became of it (`delivered`, `coalesced`, `pendingLaunch`, `notWoken`, `duplicate`).
    public struct PushAccepted: Codable, Sendable, Equatable {
        public var disposition: String
        public init(disposition: String) { self.disposition = disposition }
    }

    /// `policy reload`: a sentence describing the policy now in force.
    public struct PolicyReloaded: Codable, Sendable, Equatable {
        public var message: String
        public init(message: String) { self.message = message }
    }
}
