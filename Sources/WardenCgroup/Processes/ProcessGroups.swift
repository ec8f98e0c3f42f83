/// The groups a process belongs to besides its primary one, from `/proc/PID/status`: a control
/// call's `SO_PEERCRED` carries only the primary group, and an operator is usually in the admin
/// group as one of their supplementary groups.
public enum ProcessGroups {
    /// The group ids of the `Groups:` line of a `/proc/PID/status` text (empty when the line is
    /// missing or lists none).
    public static func supplementary(inStatusFile text: String) -> [UInt32] {
        for line in text.split(separator: "\n") where line.hasPrefix("Groups:") {
            return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" })
                .compactMap { UInt32($0) }
        }
        return []
    }

    /// The supplementary groups of process `pid` (`/proc/PID/status` under `procRoot`); empty
    /// when the process is gone or its status cannot be read.
    public static func supplementary(of pid: Int32, procRoot: String = "/proc") -> [UInt32] {
        guard pid > 0, case .success(let text) = Syscalls.readText("\(procRoot)/\(pid)/status") else { return [] }
        return supplementary(inStatusFile: text)
    }
}
