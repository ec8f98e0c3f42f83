/// Which app group a process belongs to, from the one file `/proc/PID/cgroup` rather than every
/// group's `cgroup.procs`: a control call names its caller by pid, and reading a hundred groups'
/// process lists for each call would cost more than the call itself.
public enum ProcessMembership {
    /// The name of the group among `groups` (keyed by name) that `/proc/PID/cgroup`'s text
    /// places the process in; nil when it is in none of them.
    ///
    /// Each line is `ID:CONTROLLERS:PATH`, the path relative to its hierarchy's mount. A group
    /// matches when the path's last component is its name and one of its directories ends with
    /// the path; a process in a group nested below an app's group is not that app's.
    public static func group(inCgroupFile text: String, among groups: [String: AppGroup]) -> String? {
        for line in text.split(separator: "\n") {
            guard let colon = line.lastIndex(of: ":") else { continue }
            let path = line[line.index(after: colon)...]
            guard path.count > 1, let slash = path.lastIndex(of: "/") else { continue }
            let name = String(path[path.index(after: slash)...])
            if let group = groups[name], group.allPaths.contains(where: { $0.hasSuffix(path) }) {
                return name
            }
        }
        return nil
    }

    /// The name of the group among `groups` that process `pid` is in (`/proc/PID/cgroup` under
    /// `procRoot`); nil when it is in none of them or is gone.
    public static func group(of pid: Int32, among groups: [String: AppGroup], procRoot: String = "/proc") -> String? {
        guard pid > 0, case .success(let text) = Syscalls.readText("\(procRoot)/\(pid)/cgroup") else { return nil }
        return group(inCgroupFile: text, among: groups)
    }
}
