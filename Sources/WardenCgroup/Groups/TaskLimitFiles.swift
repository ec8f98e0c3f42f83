/// The pids controller's files, which read and write the same in cgroup v1 and cgroup2:
/// `pids.max` (a count or `max`), `pids.current` and `pids.events` (`max N`: forks refused).
public enum TaskLimitFiles {
    /// What the pids files of one group say.
    public struct Reading: Sendable, Hashable {
        /// Tasks in the group now (`pids.current`).
        public var current: Int
        /// The bound (`pids.max`); nil for `max`.
        public var max: Int?
        /// How many times a fork or clone was refused at the bound (`max` in `pids.events`).
        public var refusedForks: Int
    }

    /// Writes `pids.max` of `directory`: the count, or `max` for nil.
    ///
    /// - Throws: `CgroupError` naming the file when it cannot be written, or when the count is
    ///   not positive.
    public static func setMax(_ limit: Int?, in directory: String) throws(CgroupError) {
        let path = directory + "/pids.max"
        if let limit, limit < 1 {
            throw CgroupError(
                code: .malformed, message: "The task limit \(limit) for \"\(path)\" must be at least 1.",
                cause: "value out of range")
        }
        if case .failure(let error) = Syscalls.writeText(limit.map(String.init) ?? "max", to: path) {
            throw .from(error, "set the task limit in", path: path)
        }
    }

    /// Reads `pids.current`, `pids.max` and `pids.events` of `directory`.
    public static func read(in directory: String) throws(CgroupError) -> Reading {
        let current = try CgroupFileParser.integer(
            try text(directory + "/pids.current"), path: directory + "/pids.current")
        let max = try CgroupFileParser.limit(try text(directory + "/pids.max"), path: directory + "/pids.max")
        let eventsPath = directory + "/pids.events"
        let events =
            (try? Syscalls.readText(eventsPath).get()).map { text in
                (try? CgroupFileParser.keyedValues(text, path: eventsPath)) ?? [:]
            } ?? [:]
        return Reading(current: Int(current), max: max.map(Int.init), refusedForks: Int(events["max"] ?? 0))
    }

    private static func text(_ path: String) throws(CgroupError) -> String {
        switch Syscalls.readText(path) {
        case .success(let text): return text
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }
}
