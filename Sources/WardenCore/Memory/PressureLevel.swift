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
