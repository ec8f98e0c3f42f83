public import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The driver for pure cgroup v2 hosts: every operation is a file in the app's cgroup2 directory.
///
/// Groups live at `ROOT/NAME`, where ROOT is `<mount>/appwarden` (`hierarchyRoot` placement) or
/// `<the daemon's own group>/appwarden` (`delegated` placement, after the daemon moved itself into
/// a `daemon` leaf so that controllers can be enabled). The memory controller is enabled for the
/// app groups when the hierarchy offers it; without it, statistics come from `/proc/PID/statm`.
public struct UnifiedDriver: CgroupDriver {
    public let layout: CgroupLayout
    /// The configuration the driver was made with.
    public let configuration: CgroupConfiguration
    /// The cgroup2 directory that holds the app groups.
    public let rootDirectory: String
    /// The placement in effect (`automatic` resolved).
    public let placement: CgroupConfiguration.Placement
    let files: UnifiedHierarchy
    let logger: Logger

    /// Makes a driver for `layout`.
    ///
    /// - Throws: `CgroupError` with code `notMounted` when the layout has no cgroup2 mount, or
    ///   when delegated placement is asked for but the daemon's own group is unknown.
    public init(
        layout: CgroupLayout,
        configuration: CgroupConfiguration = CgroupConfiguration(),
        logger: Logger = Logger(label: "appwarden.cgroup")
    ) throws(CgroupError) {
        guard let mountPoint = layout.unifiedMountPoint else {
            throw CgroupError(
                code: .notMounted,
                message: "No cgroup2 file system is mounted, which the cgroup v2 driver needs. "
                    + CgroupError.howToGetAccess,
                cause: "no cgroup2 line in /proc/self/mountinfo")
        }
        var placement = configuration.placement
        if placement == .automatic {
            let ownPath = layout.ownUnifiedPath ?? "/"
            placement = getenv("INVOCATION_ID") != nil && ownPath != "/" ? .delegated : .hierarchyRoot
        }
        switch placement {
        case .delegated:
            guard let own = layout.ownUnifiedPath.flatMap({ layout.unifiedDirectory(path: $0) }) else {
                throw CgroupError(
                    code: .notFound,
                    message: "appwarden was asked to use its own delegated group, but its cgroup2 group could not "
                        + "be found in \"/proc/self/cgroup\" under \"\(mountPoint)\". Run it under systemd with "
                        + "Delegate=yes, or choose the hierarchy-root placement and run it as root.",
                    cause: "no usable 0:: line")
            }
            rootDirectory = own + "/" + configuration.rootName
        case .hierarchyRoot, .automatic:
            rootDirectory = mountPoint + "/" + configuration.rootName
        }
        self.layout = layout
        self.configuration = configuration
        self.placement = placement
        self.logger = logger
        self.files = UnifiedHierarchy(logger: logger)
    }

    /// The controllers appwarden enables for its app groups where the hierarchy offers them.
    static let wantedControllers = ["memory"]

    public func prepare() async throws(CgroupError) {
        let parent = String(rootDirectory[..<(rootDirectory.lastIndex(of: "/") ?? rootDirectory.endIndex)])
        if placement == .delegated {
            try moveDaemonIntoLeaf(of: parent)
        }
        try files.enableControllers(Self.wantedControllers, in: parent)
        try files.createDirectory(rootDirectory)
        try files.enableControllers(Self.wantedControllers, in: rootDirectory)
    }

    /// Moves every process of the delegated group into its `daemon` leaf, so that the group may
    /// enable controllers for its children ("no internal processes").
    private func moveDaemonIntoLeaf(of parent: String) throws(CgroupError) {
        let leaf = parent + "/" + configuration.daemonLeafName
        try files.createDirectory(leaf)
        for pid in try files.processes(in: parent) {
            do {
                try files.attach(pid, to: leaf)
            } catch  where error.code == .notFound {
                continue
            }
        }
    }

    public func group(named name: String) -> AppGroup {
        AppGroup(name: name, unifiedPath: rootDirectory + "/" + name)
    }

    public func createGroup(named name: String) async throws(CgroupError) -> AppGroup {
        try await prepare()
        let group = group(named: name)
        try files.createDirectory(group.unifiedPath!)
        return group
    }

    public func attach(_ pid: Int32, to group: AppGroup) async throws(CgroupError) {
        try files.attach(pid, to: try directory(of: group))
    }

    public func setMemoryLimits(_ limits: MemoryLimits, of group: AppGroup) async throws(CgroupError) {
        guard layout.memorySource == .unified else {
            throw CgroupError(
                code: .missingController,
                message: "Memory limits for \"\(group.name)\" need the cgroup2 memory controller, which "
                    + "\"\(layout.unifiedMountPoint ?? "")\" does not offer. " + CgroupError.howToGetAccess,
                cause: "memory not in cgroup.controllers")
        }
        try files.setMemoryLimits(limits, in: try directory(of: group))
    }

    public func freeze(_ group: AppGroup) async throws(CgroupError) {
        try files.freeze(try directory(of: group), timeout: configuration.freezeTimeout)
    }

    public func thaw(_ group: AppGroup) async throws(CgroupError) {
        try files.thaw(try directory(of: group))
    }

    public func isFrozen(_ group: AppGroup) async throws(CgroupError) -> Bool {
        try files.isFrozen(try directory(of: group))
    }

    public func kill(_ group: AppGroup) async throws(CgroupError) {
        try kill(group, afterSignal: {})
    }

    public func kill(_ group: AppGroup, releasingMemory: Bool) async throws(CgroupError) {
        let release =
            releasingMemory ? MemoryRelease(pids: (try? await processes(in: group)) ?? [], logger: logger) : nil
        try kill(group) { release?.release() }
    }

    /// Writes `cgroup.kill`, runs `afterSignal` once the processes have SIGKILL pending, and
    /// waits until the group is empty.
    func kill(_ group: AppGroup, afterSignal: () -> Void) throws(CgroupError) {
        try files.kill(try directory(of: group), timeout: configuration.killTimeout, afterSignal: afterSignal)
    }

    public func processes(in group: AppGroup) async throws(CgroupError) -> [Int32] {
        try files.processes(in: try directory(of: group))
    }

    public func remove(_ group: AppGroup) async throws(CgroupError) {
        try files.remove(try directory(of: group))
    }

    public func removeRoot() async throws(CgroupError) {
        try files.remove(rootDirectory)
    }

    public func memoryStatistics(of group: AppGroup) async throws(CgroupError) -> MemoryStatistics {
        let directory = try directory(of: group)
        if layout.memorySource == .unified {
            return try files.memoryStatistics(of: directory)
        }
        return try ProcessMemory.statistics(of: files.processes(in: directory))
    }

    public func memoryPressure(of group: AppGroup) async throws(CgroupError) -> PressureStall? {
        try files.memoryPressure(of: try directory(of: group))
    }

    private func directory(of group: AppGroup) throws(CgroupError) -> String {
        guard let path = group.unifiedPath else {
            throw CgroupError(
                code: .notFound, message: "The group \"\(group.name)\" has no cgroup2 directory.",
                cause: "AppGroup.unifiedPath is nil")
        }
        return path
    }
}
