public import WardenCore

extension AppInfo {
    /// An app's lifecycle state on the wire: the core's `AppState` spelled as its raw value,
    /// or a name this version does not know (from a newer daemon), kept as it was sent.
    public enum State: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        case notRunning, inactive, active, background, suspended
        /// A state this version does not know.
        case other(String)

        public init(_ state: AppState) {
            switch state {
            case .notRunning: self = .notRunning
            case .inactive: self = .inactive
            case .active: self = .active
            case .background: self = .background
            case .suspended: self = .suspended
            }
        }

        public init(rawValue: String) {
            self = AppState(rawValue: rawValue).map(Self.init) ?? .other(rawValue)
        }

        /// The core's state, nil for a state this version does not know.
        public var appState: AppState? {
            switch self {
            case .notRunning: .notRunning
            case .inactive: .inactive
            case .active: .active
            case .background: .background
            case .suspended: .suspended
            case .other: nil
            }
        }

        public var rawValue: String {
            if case .other(let name) = self { return name }
            return appState?.rawValue ?? ""
        }

        public var description: String { rawValue }
    }

    /// The coarse status on the wire: the core's `AppStatus` by name (`foreground`, …), or a
    /// name this version does not know, kept as it was sent.
    public enum Status: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        case unknown, foreground, background, terminating
        /// A status this version does not know.
        case other(String)

        public init(_ status: AppStatus) {
            switch status {
            case .unknown: self = .unknown
            case .foreground: self = .foreground
            case .background: self = .background
            case .terminating: self = .terminating
            }
        }

        public init(rawValue: String) {
            self = AppStatus(name: rawValue).map(Self.init) ?? .other(rawValue)
        }

        /// The core's status, nil for a status this version does not know.
        public var appStatus: AppStatus? {
            switch self {
            case .unknown: .unknown
            case .foreground: .foreground
            case .background: .background
            case .terminating: .terminating
            case .other: nil
            }
        }

        public var rawValue: String {
            if case .other(let name) = self { return name }
            return appStatus?.description ?? ""
        }

        public var description: String { rawValue }
    }

    /// A kill band on the wire: the core's `KillBand` by name (`idle-background`, …), or a
    /// name this version does not know, kept as it was sent.
    public enum Band: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        case overFairShare, suspended, idleBackground, backgroundWindow, backgroundTask, activity, foreground
        /// A band this version does not know.
        case other(String)

        public init(_ band: KillBand) {
            switch band {
            case .overFairShare: self = .overFairShare
            case .suspended: self = .suspended
            case .idleBackground: self = .idleBackground
            case .backgroundWindow: self = .backgroundWindow
            case .backgroundTask: self = .backgroundTask
            case .activity: self = .activity
            case .foreground: self = .foreground
            }
        }

        public init(rawValue: String) {
            self = KillBand(name: rawValue).map(Self.init) ?? .other(rawValue)
        }

        /// The core's band, nil for a band this version does not know.
        public var killBand: KillBand? {
            switch self {
            case .overFairShare: .overFairShare
            case .suspended: .suspended
            case .idleBackground: .idleBackground
            case .backgroundWindow: .backgroundWindow
            case .backgroundTask: .backgroundTask
            case .activity: .activity
            case .foreground: .foreground
            case .other: nil
            }
        }

        public var rawValue: String {
            if case .other(let name) = self { return name }
            return killBand?.description ?? ""
        }

        public var description: String { rawValue }
    }
}
