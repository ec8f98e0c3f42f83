/// The lifecycle state of one app (DESIGN §1).
public enum AppState: String, Sendable, Hashable, CaseIterable, Codable {
    case notRunning
    /// In the foreground, not receiving events (launching, or covered by an overlay).
    case inactive
    /// In the foreground and receiving events.
    case active
    /// Running, out of sight.
    case background
    /// Frozen with the cgroup freezer, in memory, runs no code.
    case suspended

    /// The coarse status that observers see.
    public var status: AppStatus {
        switch self {
        case .notRunning: .unknown
        case .inactive, .active: .foreground
        case .background, .suspended: .background
        }
    }
}

/// The four-value status of the status notifier (§1.5).
public enum AppStatus: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case unknown = 0
    case foreground = 1
    case background = 2
    case terminating = 3

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .foreground: "foreground"
        case .background: "background"
        case .terminating: "terminating"
        }
    }

    /// Parses `"unknown"`, `"foreground"`, `"background"` or `"terminating"`.
    public init?(name: String) {
        guard let status = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = status
    }
}

/// Why an app stopped running (§1.6).
public enum TerminationReason: String, Sendable, Hashable, CaseIterable, Codable {
    case exited
    case crashed
    case userForceQuit
    case memoryPressure
    case backgroundTaskExpired
    case fetchTimeout
    case pushTimeout
    case heldSharedResource
    case launchTimeout
    case policyRemoved
    /// Restarted by a policy reload that changed how it is launched (`--restart-changed`).
    case policyChanged

    /// Whether the system (not the user, not the app itself) ended the app: its preserved
    /// state is kept and the next launch restores from it.
    public var isSystemTermination: Bool {
        switch self {
        case .memoryPressure, .backgroundTaskExpired, .fetchTimeout, .pushTimeout,
            .heldSharedResource, .launchTimeout:
            true
        case .exited, .crashed, .userForceQuit, .policyRemoved, .policyChanged:
            false
        }
    }

    /// Whether the app is stopped politely (SIGTERM, then a kill after the termination grace);
    /// every other termination is an immediate SIGKILL of the whole group (rule 11).
    public var isGraceful: Bool {
        self == .userForceQuit || self == .policyRemoved || self == .policyChanged
    }
}

/// The memory-pressure level (rules 8 and 9).
public enum PressureLevel: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    case normal
    case warning
    case critical

    public static func < (lhs: PressureLevel, rhs: PressureLevel) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .normal: 0
        case .warning: 1
        case .critical: 2
        }
    }
}

/// The result an app reports for a fetch or push window.
public enum CompletionResult: String, Sendable, Hashable, CaseIterable {
    case newData
    case noData
    case failed
}

/// Why a process was launched (`APPWARDEN_LAUNCH_REASON`).
public enum LaunchReason: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user opened the app.
    case user
    /// A background fetch woke it (passive launch).
    case fetch
    /// A silent push woke it (passive launch).
    case push
}

/// What the watchdog's scan of an app's processes found (§1.5).
public enum ScanOutcome: String, Sendable, Hashable, CaseIterable {
    /// Still running in the foreground.
    case foreground
    /// Stopped, frozen or gone.
    case background
    /// The scan itself failed.
    case error
}

/// How a process ended, as the runtime saw it.
public enum ProcessEnd: Sendable, Hashable {
    /// Exit status 0, or a signal the app was sent by appwarden.
    case exited(code: Int32)
    /// A non-zero exit status or a fatal signal appwarden did not send.
    case crashed(description: String)
}
