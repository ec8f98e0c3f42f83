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
/// a `daemon` leaf so that controllers can be enabled, unless systemd started it there) or
/// `<the service's slice>/appwarden-apps.scope/appwarden` (`systemdScope` placement). The memory
/// controller is enabled for the app groups when the hierarchy offers it; without it, statistics
/// come from `/proc/PID/statm`.
public struct UnifiedDriver: CgroupDriver {
    public let layout: CgroupLayout
    /// The configuration the driver was made with.
    public let configuration: CgroupConfiguration
    /// The cgroup2 directory that holds the app groups.
    public let rootDirectory: String
    /// The placement in effect (`automatic` resolved).
    public let placement: CgroupConfiguration.Placement
    /// The group that holds the root group (and the daemon's or keeper's leaf, if any).
    let baseDirectory: String
    /// The leaf that the base group's own processes move into before controllers are enabled.
    let baseLeafName: String?
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
        let ownDirectory = layout.ownUnifiedPath.flatMap { layout.unifiedDirectory(path: $0) }
        let resolved = try Self.resolvePlacement(
            configuration: configuration, mountPoint: mountPoint, ownDirectory: ownDirectory,
            underSystemd: getenv("INVOCATION_ID") != nil, memoryOnUnified: layout.memorySource == .unified)
        placement = resolved.placement
        baseDirectory = resolved.baseDirectory
        baseLeafName = resolved.leafName
        rootDirectory = resolved.baseDirectory + "/" + configuration.rootName
        self.layout = layout
        self.configuration = configuration
        self.logger = logger
        self.files = UnifiedHierarchy(logger: logger)
    }

    /// The controllers appwarden enables for its app groups where the hierarchy offers them.
    static let wantedControllers = ["memory", "pids", "cpu", "io"]

    public func prepare() async throws(CgroupError) {
        if placement == .systemdScope {
            try await startScopeIfNeeded()
        }
        if let leafName = baseLeafName {
            try moveProcesses(of: baseDirectory, intoLeaf: baseDirectory + "/" + leafName)
        }
        try files.enableControllers(Self.wantedControllers, in: baseDirectory)
        try files.createDirectory(rootDirectory)
        try files.enableControllers(Self.wantedControllers, in: rootDirectory)
    }

    /// Moves every process of `group` into `leaf`, so that `group` may enable controllers for
    /// its children ("no internal processes").
    private func moveProcesses(of group: String, intoLeaf leaf: String) throws(CgroupError) {
        try files.createDirectory(leaf)
        for pid in try files.processes(in: group) {
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

    /// Creates the group; where cgroup2 holds the memory controller, the kernel's OOM killer
    /// then kills the whole group at once (`memory.oom.group = 1`): an app is one unit.
    public func createGroup(named name: String) async throws(CgroupError) -> AppGroup {
        try await prepare()
        let group = group(named: name)
        try files.createDirectory(group.unifiedPath!)
        if layout.memorySource == .unified {
            // Kernels before 4.19 have no such file; the daemon then kills the rest itself.
            _ = Syscalls.writeText("1", to: group.unifiedPath! + "/memory.oom.group")
        }
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

    public func setTasksMax(_ limit: Int?, of group: AppGroup) async throws(CgroupError) {
        guard layout.unifiedControllers.contains("pids") else {
            throw CgroupError(
                code: .missingController,
                message: "A task limit for \"\(group.name)\" needs the cgroup2 pids controller, which "
                    + "\"\(layout.unifiedMountPoint ?? "")\" does not offer. " + CgroupError.howToGetAccess,
                cause: "pids not in cgroup.controllers")
        }
        try TaskLimitFiles.setMax(limit, in: try directory(of: group))
    }

    public var cpuController: CPUControllerSource {
        layout.unifiedControllers.contains("cpu") ? .unified : .unavailable
    }

    public func setCPU(_ controls: CPUControls, of group: AppGroup) async throws(CgroupError) {
        guard cpuController == .unified else {
            throw CgroupError(
                code: .missingController,
                message: "CPU controls for \"\(group.name)\" need the cgroup2 cpu controller, which "
                    + "\"\(layout.unifiedMountPoint ?? "")\" does not offer. " + CgroupError.howToGetAccess,
                cause: "cpu not in cgroup.controllers")
        }
        try files.setCPU(controls, in: try directory(of: group))
    }

    public func cpuUsage(of group: AppGroup) async throws(CgroupError) -> Duration? {
        try files.cpuUsage(of: try directory(of: group))
    }

    /// Writes the group's I/O weight where the hierarchy offers the io controller; else nothing.
    func setIOWeight(_ weight: Int, of group: AppGroup) throws(CgroupError) {
        guard layout.unifiedControllers.contains("io") else { return }
        try files.setIOWeight(weight, in: try directory(of: group))
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

    public func freezeNotices() -> FreezeNotices? {
        try? FreezeNotices()
    }

    public func kill(_ group: AppGroup) async throws(CgroupError) {
        try kill(group, within: configuration.killTimeout, afterSignal: {})
    }

    public func kill(
        _ group: AppGroup, releasingMemory: Bool, waitingAtMost timeout: Duration
    ) async throws(CgroupError) {
        let release =
            releasingMemory ? MemoryRelease(pids: (try? await processes(in: group)) ?? [], logger: logger) : nil
        try kill(group, within: timeout) { release?.release() }
    }

    /// Writes `cgroup.kill`, runs `afterSignal` once the processes have SIGKILL pending, and
    /// waits up to `timeout` until the group is empty.
    func kill(_ group: AppGroup, within timeout: Duration, afterSignal: () -> Void) throws(CgroupError) {
        try files.kill(try directory(of: group), timeout: timeout, afterSignal: afterSignal)
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

    /// Compresses through `memory.reclaim` where cgroup2 holds the memory controller, asking for
    /// all the group is charged; else as any driver (`process_madvise`).
    public func compress(_ group: AppGroup) async throws(CgroupError) -> Int64 {
        guard layout.memorySource == .unified else {
            _ = try MemoryCompression.pageOut(pids: try await processes(in: group))
            return Int64(clamping: try await memoryStatistics(of: group).swap)
        }
        let directory = try directory(of: group)
        let charged = try await memoryStatistics(of: group).current
        do {
            try MemoryCompression.reclaim(directory: directory, bytes: Int64(clamping: charged))
        } catch  where error.code == .missingController {
            _ = try MemoryCompression.pageOut(pids: try await processes(in: group))
        }
        return Int64(clamping: try await memoryStatistics(of: group).swap)
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

    public func stall(of group: AppGroup) async throws(CgroupError) -> Duration? {
        try files.stall(of: try directory(of: group))
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
