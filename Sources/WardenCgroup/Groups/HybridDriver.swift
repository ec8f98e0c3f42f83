public import Logging

/// The driver for hosts with cgroup v1 hierarchies, with or without a cgroup2 mount beside them.
///
/// Each capability comes from the best place the host offers: memory from the cgroup2 memory
/// controller if it has one, else from the v1 memory hierarchy; freeze and kill from any cgroup2
/// mount (`cgroup.freeze`, `cgroup.kill`), else from the v1 freezer and SIGKILL to each process,
/// thawing afterwards because frozen v1 tasks cannot die. v1 groups are created, joined and
/// removed through libcgroup at the top of each hierarchy (`<mount>/appwarden/NAME`).
public struct HybridDriver: CgroupDriver {
    public let layout: CgroupLayout
    /// The configuration the driver was made with.
    public let configuration: CgroupConfiguration
    /// The cgroup2 part, when the host has a cgroup2 mount.
    public let unified: UnifiedDriver?
    /// Whether freezing goes through the v1 freezer hierarchy.
    public let freezesThroughV1: Bool
    /// Whether memory statistics and limits come from the v1 memory hierarchy.
    public let memoryFromV1: Bool
    /// Whether the task limit (`pids.max`) lives in the v1 pids hierarchy, because the cgroup2
    /// mount has no pids controller.
    public let tasksFromV1: Bool
    /// Whether CPU controls live in the v1 cpu hierarchy, because the cgroup2 mount has no cpu
    /// controller.
    public let cpuFromV1: Bool
    let libcgroup: Libcgroup
    let legacy: LegacyHierarchy
    let logger: Logger

    /// Makes a driver for `layout`.
    ///
    /// - Throws: `CgroupError` with code `notMounted` when the host has no cgroup at all, or
    ///   `missingController` when it can neither freeze (no freezer, no cgroup2) nor account memory.
    public init(
        layout: CgroupLayout,
        configuration: CgroupConfiguration = CgroupConfiguration(),
        libcgroup: Libcgroup = .shared,
        logger: Logger = Logger(label: "appwarden.cgroup")
    ) throws(CgroupError) {
        if layout.kind == .none { throw CgroupLayout.notMountedError }
        unified =
            layout.unifiedMountPoint == nil
            ? nil
            : try UnifiedDriver(
                layout: layout, configuration: configuration, logger: logger)
        let hasFreezer = layout.v1Hierarchies["freezer"] != nil
        guard hasFreezer || unified != nil else {
            throw CgroupError(
                code: .missingController,
                message: "appwarden needs the freezer controller (\"/sys/fs/cgroup/freezer\") or a cgroup2 mount "
                    + "to suspend apps, and this host has neither. " + CgroupError.howToGetAccess,
                cause: "no freezer hierarchy and no cgroup2 mount")
        }
        freezesThroughV1 = hasFreezer && (unified == nil || configuration.prefersV1Freezer)
        memoryFromV1 = layout.memorySource == .v1
        tasksFromV1 =
            layout.v1Hierarchies["pids"] != nil
            && !(layout.unifiedMountPoint != nil && layout.unifiedControllers.contains("pids"))
        cpuFromV1 =
            layout.v1Hierarchies["cpu"] != nil
            && !(layout.unifiedMountPoint != nil && layout.unifiedControllers.contains("cpu"))
        self.layout = layout
        self.configuration = configuration
        self.libcgroup = libcgroup
        self.logger = logger
        self.legacy = LegacyHierarchy(logger: logger)
    }

    /// The v1 controllers the app groups are created in.
    public var v1Controllers: [String] {
        (memoryFromV1 ? ["memory"] : []) + (freezesThroughV1 ? ["freezer"] : []) + (tasksFromV1 ? ["pids"] : [])
            + (cpuFromV1 ? ["cpu"] : [])
    }

    /// The path of app `name`'s group inside each v1 hierarchy, as libcgroup names it.
    func v1Path(_ name: String) -> String {
        configuration.rootName + "/" + name
    }

    public func prepare() async throws(CgroupError) {
        try await unified?.prepare()
        if !v1Controllers.isEmpty {
            try await libcgroup.createGroup(configuration.rootName, controllers: v1Controllers)
        }
    }

    public func group(named name: String) -> AppGroup {
        func directory(_ controller: String) -> String? {
            guard let mountPoint = layout.v1Hierarchies[controller]?.mountPoint else { return nil }
            return mountPoint + "/" + v1Path(name)
        }
        let memoryPath = memoryFromV1 ? directory("memory") : nil
        let freezerPath = freezesThroughV1 ? directory("freezer") : nil
        let pidsPath = tasksFromV1 ? directory("pids") : nil
        let cpuPath = cpuFromV1 ? directory("cpu") : nil
        return AppGroup(
            name: name,
            unifiedPath: unified?.group(named: name).unifiedPath,
            memoryPath: memoryPath,
            freezerPath: freezerPath,
            v1ProcsFiles: [memoryPath, freezerPath, pidsPath, cpuPath].compactMap { $0.map { $0 + "/cgroup.procs" } },
            pidsPath: pidsPath,
            cpuPath: cpuPath)
    }

    public func createGroup(named name: String) async throws(CgroupError) -> AppGroup {
        if let unified { _ = try await unified.createGroup(named: name) }
        if !v1Controllers.isEmpty {
            try await libcgroup.createGroup(v1Path(name), controllers: v1Controllers)
        }
        return group(named: name)
    }

    public func attach(_ pid: Int32, to group: AppGroup) async throws(CgroupError) {
        if !v1Controllers.isEmpty {
            try await libcgroup.attach(pid, to: v1Path(group.name), controllers: v1Controllers)
        }
        if let unified, group.unifiedPath != nil { try await unified.attach(pid, to: group) }
    }

    public func setMemoryLimits(_ limits: MemoryLimits, of group: AppGroup) async throws(CgroupError) {
        guard memoryFromV1 else {
            guard let unified else {
                throw CgroupError(
                    code: .missingController,
                    message: "Memory limits for \"\(group.name)\" need a memory controller, and this host has none. "
                        + CgroupError.howToGetAccess,
                    cause: "no memory hierarchy")
            }
            return try await unified.setMemoryLimits(limits, of: group)
        }
        try await libcgroup.setValues(
            [
                ("memory.soft_limit_in_bytes", limits.high.map(String.init) ?? "-1"),
                ("memory.limit_in_bytes", limits.max.map(String.init) ?? "-1"),
            ], controller: "memory", in: v1Path(group.name))
    }

    public func setTasksMax(_ limit: Int?, of group: AppGroup) async throws(CgroupError) {
        if tasksFromV1, let pidsPath = group.pidsPath {
            return try TaskLimitFiles.setMax(limit, in: pidsPath)
        }
        guard let unified, layout.unifiedControllers.contains("pids") else {
            throw CgroupError(
                code: .missingController,
                message: "A task limit for \"\(group.name)\" needs a pids controller, and this host has none. "
                    + CgroupError.howToGetAccess,
                cause: "no pids hierarchy")
        }
        try await unified.setTasksMax(limit, of: group)
    }

    public var cpuController: CPUControllerSource {
        cpuFromV1 ? .v1 : unified?.cpuController ?? .unavailable
    }

    /// Writes `cpu.shares` and the CFS quota in the v1 cpu hierarchy (v1 has no idle groups, so
    /// `idle` is left out there) and the I/O weight in cgroup2 where it offers the io controller,
    /// else the cgroup2 files. A group made before the v1 cpu
    /// hierarchy was used (an app re-adopted from an older daemon) is made and joined first.
    public func setCPU(_ controls: CPUControls, of group: AppGroup) async throws(CgroupError) {
        guard cpuFromV1 else {
            guard let unified else {
                throw CgroupError(
                    code: .missingController,
                    message: "CPU controls for \"\(group.name)\" need a cpu controller, and this host has none. "
                        + CgroupError.howToGetAccess,
                    cause: "no cpu hierarchy")
            }
            return try await unified.setCPU(controls, of: group)
        }
        let values: [(name: String, value: String)] = [
            ("cpu.shares", String(controls.v1Shares)),
            ("cpu.cfs_period_us", String(CPUControls.periodMicroseconds)),
            ("cpu.cfs_quota_us", controls.quotaMicroseconds.map(String.init) ?? "-1"),
        ]
        do {
            try await libcgroup.setValues(values, controller: "cpu", in: v1Path(group.name))
        } catch  where error.code == .notFound {
            try await libcgroup.createGroup(v1Path(group.name), controllers: ["cpu"])
            for pid in try await processes(in: group) {
                do {
                    try await libcgroup.attach(pid, to: v1Path(group.name), controllers: ["cpu"])
                } catch  where error.code == .notFound {
                    continue
                }
            }
            try await libcgroup.setValues(values, controller: "cpu", in: v1Path(group.name))
        }
        if let weight = controls.ioWeight, let unified, group.unifiedPath != nil {
            try unified.setIOWeight(weight, of: group)
        }
    }

    public func cpuUsage(of group: AppGroup) async throws(CgroupError) -> Duration? {
        guard let unified, group.unifiedPath != nil else { return nil }
        return try await unified.cpuUsage(of: group)
    }

    public func freeze(_ group: AppGroup) async throws(CgroupError) {
        if freezesThroughV1, let freezer = group.freezerPath {
            return try legacy.freeze(freezer, timeout: configuration.freezeTimeout)
        }
        try await requireUnified(for: "freeze \"\(group.name)\"").freeze(group)
    }

    public func thaw(_ group: AppGroup) async throws(CgroupError) {
        if freezesThroughV1, let freezer = group.freezerPath {
            return try legacy.thaw(freezer)
        }
        try await requireUnified(for: "thaw \"\(group.name)\"").thaw(group)
    }

    public func isFrozen(_ group: AppGroup) async throws(CgroupError) -> Bool {
        if freezesThroughV1, let freezer = group.freezerPath {
            return try legacy.freezerState(freezer) == "FROZEN"
        }
        return try await requireUnified(for: "read the state of \"\(group.name)\"").isFrozen(group)
    }

    /// Notices where groups freeze through the cgroup2 mount; none through the v1 freezer.
    public func freezeNotices() -> FreezeNotices? {
        freezesThroughV1 ? nil : unified?.freezeNotices()
    }

    public func kill(_ group: AppGroup) async throws(CgroupError) {
        try await kill(group, releasingMemory: false, waitingAtMost: configuration.killTimeout)
    }

    public func kill(
        _ group: AppGroup, releasingMemory: Bool, waitingAtMost timeout: Duration
    ) async throws(CgroupError) {
        // The pidfds are opened before the kill; the release runs once, after the first SIGKILL.
        let release =
            releasingMemory ? MemoryRelease(pids: (try? await processes(in: group)) ?? [], logger: logger) : nil
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        if !freezesThroughV1, let unified, group.unifiedPath != nil {
            try unified.kill(group, within: timeout) { release?.release() }
        }
        // Catch processes that joined only a v1 hierarchy, and kill-each where cgroup.kill is absent.
        let directories = [group.memoryPath, group.freezerPath, group.pidsPath, group.unifiedPath].compactMap { $0 }
        try legacy.killEach(
            directories, freezer: freezesThroughV1 ? group.freezerPath : nil,
            timeout: max(.zero, clock.now.duration(to: deadline))
        ) { release?.release() }
    }

    public func processes(in group: AppGroup) async throws(CgroupError) -> [Int32] {
        var seen = Set<Int32>()
        var pids: [Int32] = []
        for directory in [group.unifiedPath, group.memoryPath, group.freezerPath, group.pidsPath].compactMap({ $0 }) {
            for pid in try legacy.processes(in: directory) where seen.insert(pid).inserted {
                pids.append(pid)
            }
        }
        return pids
    }

    public func remove(_ group: AppGroup) async throws(CgroupError) {
        if let unified, group.unifiedPath != nil { try await unified.remove(group) }
        for controller in v1Controllers {
            try await libcgroup.deleteGroup(v1Path(group.name), controllers: [controller])
        }
    }

    public func removeRoot() async throws(CgroupError) {
        try await unified?.removeRoot()
        for controller in v1Controllers {
            try await libcgroup.deleteGroup(configuration.rootName, controllers: [controller])
        }
    }

    /// Compresses through the cgroup2 driver where it holds the memory controller; with v1
    /// memory, through `process_madvise` on each process.
    public func compress(_ group: AppGroup) async throws(CgroupError) -> Int64 {
        if !memoryFromV1, let unified { return try await unified.compress(group) }
        _ = try MemoryCompression.pageOut(pids: try await processes(in: group))
        return Int64(clamping: try await memoryStatistics(of: group).swap)
    }

    public func memoryStatistics(of group: AppGroup) async throws(CgroupError) -> MemoryStatistics {
        if memoryFromV1, let memoryPath = group.memoryPath {
            let pairs = try await libcgroup.statistics(controller: "memory", in: v1Path(group.name))
            var values: [String: UInt64] = [:]
            for (name, value) in pairs {
                if let number = UInt64(value) { values[name] = number }
            }
            return try legacy.memoryStatistics(of: memoryPath, stat: values)
        }
        if let unified { return try await unified.memoryStatistics(of: group) }
        return try ProcessMemory.statistics(of: try await processes(in: group))
    }

    public func memoryPressure(of group: AppGroup) async throws(CgroupError) -> PressureStall? {
        try await unified?.memoryPressure(of: group)
    }

    public func stall(of group: AppGroup) async throws(CgroupError) -> Duration? {
        try await unified?.stall(of: group)
    }

    private func requireUnified(for action: String) throws(CgroupError) -> UnifiedDriver {
        guard let unified else {
            throw CgroupError(
                code: .missingController,
                message: "Could not \(action): the host has no freezer hierarchy and no cgroup2 mount. "
                    + CgroupError.howToGetAccess,
                cause: "no freezer")
        }
        return unified
    }
}
