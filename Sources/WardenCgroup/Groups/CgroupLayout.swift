/// Which cgroup hierarchies a host has mounted and where the calling process sits in them.
///
/// Detection is pure: `parse(mountinfo:cgroup:unifiedControllers:)` reads the text of
/// `/proc/self/mountinfo` and `/proc/self/cgroup`, so tests feed it fixture texts for pure v2,
/// hybrid, v1-only and cgroup-less hosts. `CgroupLayout.read(procRoot:)` reads the real files.
public struct CgroupLayout: Sendable, Hashable {
    /// The broad shape of the host's cgroup setup.
    public enum Kind: String, Sendable, Hashable {
        /// Only cgroup2 is mounted (most current distributions).
        case unified
        /// cgroup v1 controller hierarchies and a cgroup2 mount side by side.
        case hybrid
        /// Only cgroup v1 hierarchies are mounted.
        case legacy
        /// No cgroup file system is mounted.
        case none
    }

    /// One mounted cgroup v1 hierarchy.
    public struct Hierarchy: Sendable, Hashable {
        /// Where the hierarchy is mounted, such as `/sys/fs/cgroup/memory`.
        public var mountPoint: String
        /// The path inside the hierarchy that the mount shows (`/` unless inside a container).
        public var mountRoot: String
        /// The controllers bound to it, such as `["memory"]` or `["cpu", "cpuacct"]`.
        public var controllers: Set<String>
    }

    /// The cgroup2 mount point, if one is mounted (the first one found).
    public var unifiedMountPoint: String?
    /// The path inside the cgroup2 hierarchy that the cgroup2 mount shows.
    public var unifiedMountRoot: String
    /// The controllers the cgroup2 hierarchy offers (`cgroup.controllers` at its root).
    public var unifiedControllers: Set<String>
    /// The mounted v1 hierarchies, keyed by controller name (named hierarchies as `name=systemd`).
    public var v1Hierarchies: [String: Hierarchy]
    /// The calling process's cgroup2 path (the `0::` line of `/proc/self/cgroup`).
    public var ownUnifiedPath: String?
    /// The calling process's v1 paths, keyed by controller.
    public var ownV1Paths: [String: String]

    /// Makes a layout from its parts (tests and `parse` use this).
    public init(
        unifiedMountPoint: String? = nil,
        unifiedMountRoot: String = "/",
        unifiedControllers: Set<String> = [],
        v1Hierarchies: [String: Hierarchy] = [:],
        ownUnifiedPath: String? = nil,
        ownV1Paths: [String: String] = [:]
    ) {
        self.unifiedMountPoint = unifiedMountPoint
        self.unifiedMountRoot = unifiedMountRoot
        self.unifiedControllers = unifiedControllers
        self.v1Hierarchies = v1Hierarchies
        self.ownUnifiedPath = ownUnifiedPath
        self.ownV1Paths = ownV1Paths
    }

    /// The broad shape of this layout.
    public var kind: Kind {
        switch (unifiedMountPoint != nil, !v1Hierarchies.isEmpty) {
        case (true, false): return .unified
        case (true, true): return .hybrid
        case (false, true): return .legacy
        case (false, false): return .none
        }
    }

    /// Where memory statistics and limits come from.
    public enum MemorySource: String, Sendable, Hashable {
        /// The cgroup2 memory controller (`memory.current`, `memory.stat`, `memory.max`).
        case unified
        /// The v1 memory hierarchy (`memory.usage_in_bytes`, `memory.limit_in_bytes`).
        case v1
        /// No memory controller: statistics come from `/proc/PID/statm`.
        case procfs
    }

    /// Where freezing and killing a whole group happen.
    public enum FreezeSource: String, Sendable, Hashable {
        /// `cgroup.freeze` and `cgroup.kill` of a cgroup2 mount.
        case unified
        /// The v1 freezer hierarchy (`freezer.state`) and SIGKILL to each process.
        case v1
        /// Neither: SIGSTOP/SIGCONT are not used, so freezing is unavailable.
        case unavailable
    }

    /// Memory from v2 if its memory controller is available, else v1, else /proc.
    public var memorySource: MemorySource {
        if unifiedMountPoint != nil && unifiedControllers.contains("memory") { return .unified }
        if v1Hierarchies["memory"] != nil { return .v1 }
        return .procfs
    }

    /// Freeze and kill from any cgroup2 mount, else the v1 freezer.
    public var freezeSource: FreezeSource {
        if unifiedMountPoint != nil { return .unified }
        if v1Hierarchies["freezer"] != nil { return .v1 }
        return .unavailable
    }

    /// The directory of `path` (a path inside a hierarchy) under the v1 hierarchy of `controller`.
    ///
    /// Returns nil when the controller is not mounted or `path` lies outside what the mount shows.
    public func v1Directory(controller: String, path: String) -> String? {
        guard let hierarchy = v1Hierarchies[controller] else { return nil }
        return Self.directory(mountPoint: hierarchy.mountPoint, mountRoot: hierarchy.mountRoot, path: path)
    }

    /// The directory of `path` (a path inside the cgroup2 hierarchy) under the cgroup2 mount.
    public func unifiedDirectory(path: String) -> String? {
        guard let mountPoint = unifiedMountPoint else { return nil }
        return Self.directory(mountPoint: mountPoint, mountRoot: unifiedMountRoot, path: path)
    }

    static func directory(mountPoint: String, mountRoot: String, path: String) -> String? {
        let root = mountRoot == "/" ? "" : mountRoot
        guard path == root || path.hasPrefix(root + "/") || root.isEmpty else { return nil }
        let relative = String(path.dropFirst(root.count))
        let trimmed = relative.hasPrefix("/") ? String(relative.dropFirst()) : relative
        if trimmed.isEmpty { return mountPoint }
        return mountPoint.hasSuffix("/") ? mountPoint + trimmed : mountPoint + "/" + trimmed
    }
}
