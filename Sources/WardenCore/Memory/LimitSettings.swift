/// `[limits]`: bounds on what one app may grow to, beyond memory.
public struct LimitSettings: Sendable, Equatable {
    /// The most tasks (processes and threads) an app's group may hold (`tasks_max`, 512).
    ///
    /// Written to the group's `pids.max`, so that a fork bomb inside an app stops at the limit:
    /// further `fork` and `clone` calls fail with `EAGAIN`.
    public var tasksMax: TaskLimit

    public init(tasksMax: TaskLimit = .count(512)) {
        self.tasksMax = tasksMax
    }
}

/// A bound on the tasks of an app's group: a count, or `max` for no bound.
public enum TaskLimit: Sendable, Equatable, CustomStringConvertible {
    /// No bound (`"max"`).
    case unlimited
    /// At most this many tasks, from 1 to `TaskLimit.largest`.
    case count(Int)

    /// The largest count the kernel accepts (`PID_MAX_LIMIT`, 2^22).
    public static let largest = 4_194_304

    /// The count, or nil for no bound.
    public var count: Int? {
        if case .count(let count) = self { return count }
        return nil
    }

    /// The text `pids.max` takes: the count, or `max`.
    public var description: String {
        switch self {
        case .unlimited: "max"
        case .count(let count): String(count)
        }
    }
}
