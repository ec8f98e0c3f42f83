/// Where one app's group lives in each hierarchy the host has.
///
/// A pure cgroup v2 host fills only `unifiedPath`. A hybrid host like a v1 memory + freezer
/// layout with a cgroup2 mount beside it fills `memoryPath`, `unifiedPath` (for freeze, kill and
/// PSI) and the v1 `cgroup.procs` files the spawned child joins before `execve`.
public struct AppGroup: Sendable, Hashable {
    /// The group's name, the last component of each directory.
    public var name: String
    /// The cgroup2 directory (for `CLONE_INTO_CGROUP`, freeze, kill and PSI), if the host has one.
    public var unifiedPath: String?
    /// The v1 memory directory (nil on pure v2).
    public var memoryPath: String?
    /// The v1 freezer directory (nil when freezing through cgroup2).
    public var freezerPath: String?
    /// `cgroup.procs` files the spawned child must write "0" to before `execve` (v1 joins).
    public var v1ProcsFiles: [String]
    /// The v1 pids directory, where the task limit lives when cgroup2 has no pids controller.
    public var pidsPath: String?
    /// The v1 cpu directory, where the CPU controls live when cgroup2 has no cpu controller.
    public var cpuPath: String?

    /// Makes a group description from its directories.
    public init(
        name: String,
        unifiedPath: String? = nil,
        memoryPath: String? = nil,
        freezerPath: String? = nil,
        v1ProcsFiles: [String] = [],
        pidsPath: String? = nil,
        cpuPath: String? = nil
    ) {
        self.name = name
        self.unifiedPath = unifiedPath
        self.memoryPath = memoryPath
        self.freezerPath = freezerPath
        self.v1ProcsFiles = v1ProcsFiles
        self.pidsPath = pidsPath
        self.cpuPath = cpuPath
    }

    /// Every directory of the group, v2 first, without duplicates.
    public var allPaths: [String] {
        var paths: [String] = []
        for path in [unifiedPath, memoryPath, freezerPath, pidsPath, cpuPath] {
            if let path, !paths.contains(path) { paths.append(path) }
        }
        return paths
    }
}
