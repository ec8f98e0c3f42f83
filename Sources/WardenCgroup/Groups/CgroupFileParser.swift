/// Pure parsers for the formats cgroup and proc files share.
///
/// Each takes the text of a file and the path to name in errors, and never reads anything.
public enum CgroupFileParser {
    /// Parses a single unsigned integer, as in `memory.current`.
    public static func integer(_ text: String, path: String) throws(CgroupError) -> UInt64 {
        let trimmed = text.trimmingCharacters(in: " \n\t")
        guard let value = UInt64(trimmed) else {
            throw .malformed("value", path: path, detail: "expected a whole number of bytes, found \"\(trimmed)\"")
        }
        return value
    }

    /// Parses a limit such as `memory.max`: a number, or `max` for none (returned as nil).
    public static func limit(_ text: String, path: String) throws(CgroupError) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: " \n\t")
        if trimmed == "max" { return nil }
        guard let value = UInt64(trimmed) else {
            throw .malformed("limit", path: path, detail: "expected a number of bytes or \"max\", found \"\(trimmed)\"")
        }
        return value
    }

    /// Parses "KEY VALUE" lines, as in `memory.stat`, `memory.events` and `cgroup.events`.
    public static func keyedValues(_ text: String, path: String) throws(CgroupError) -> [String: UInt64] {
        var values: [String: UInt64] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let value = UInt64(parts[1]) else {
                throw .malformed(
                    "line \(index + 1) (\"\(line)\")", path: path, detail: "expected a key and a whole number")
            }
            values[String(parts[0])] = value
        }
        return values
    }

    /// Parses a list of process ids, one a line, as in `cgroup.procs`.
    public static func processIDs(_ text: String, path: String) throws(CgroupError) -> [Int32] {
        var pids: [Int32] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            guard let pid = Int32(line.trimmingCharacters(in: " \t")) else {
                throw .malformed("line \(index + 1) (\"\(line)\")", path: path, detail: "expected a process id")
            }
            pids.append(pid)
        }
        return pids
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        var view = Substring(self)
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }

    /// The text without leading and trailing whitespace and newlines.
    func trimmingWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view = view.dropFirst() }
        while let last = view.last, last.isWhitespace { view = view.dropLast() }
        return String(view)
    }
}
