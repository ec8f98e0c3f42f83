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
