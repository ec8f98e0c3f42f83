import CLibcgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The one place that calls libcgroup, wrapped as an actor so every call runs serialised.
///
/// libcgroup serves where it fits: mount discovery (`cgroup_init` and its mount table),
/// creating and deleting app groups in the v1 hierarchies (memory and freezer in one
/// `struct cgroup`), v1 attach, writing v1 values and enumerating `memory.stat` on demand.
/// Each C call is wrapped once and its code turned into a sentence by `LibcgroupStatus`,
/// never by `cgroup_strerror` (which is off by one for some codes).
public actor Libcgroup {
    /// A controller and the directory where its hierarchy is mounted.
    public struct MountPoint: Sendable, Hashable {
        /// The controller name, such as `memory`.
        public var controller: String
        /// The mount point, such as `/sys/fs/cgroup/memory`.
        public var path: String
    }

    /// The process-wide instance: libcgroup keeps global state, so all calls should go through it.
    public static let shared = Libcgroup()

    private var initialized = false

    /// Makes the wrapper; `cgroup_init` runs on first use. Prefer `shared`.
    public init() {}

    /// Calls `cgroup_init` once, which reads the mount table into libcgroup.
    ///
    /// - Throws: `CgroupError` with code `notMounted` when no hierarchy is mounted.
    public func initialize() throws(CgroupError) {
        if initialized { return }
        let status = LibcgroupStatus(cgroup_init())
        if !status.isSuccess {
            throw status.error(doing: "read the cgroup mount table from", target: "\"/proc/self/mounts\"")
        }
        initialized = true
    }

    /// The mounted v1 controllers and their mount points, from `cgroup_get_controller_begin`.
    public func mountTable() throws(CgroupError) -> [MountPoint] {
        try initialize()
        var handle: UnsafeMutableRawPointer?
        var info = cgroup_mount_point()
        var mounts: [MountPoint] = []
        var status = LibcgroupStatus(cgroup_get_controller_begin(&handle, &info))
        defer { cgroup_get_controller_end(&handle) }
        while status.isSuccess {
            mounts.append(
                MountPoint(controller: Self.string(from: &info.name), path: Self.string(from: &info.path)))
            status = LibcgroupStatus(cgroup_get_controller_next(&handle, &info))
        }
        if !status.isEndOfSequence {
            throw status.error(doing: "list the mounted cgroup controllers from", target: "\"/proc/self/mounts\"")
        }
        return mounts
    }

    /// Creates the group `path` (relative to each hierarchy's root) in the hierarchies of
    /// `controllers`, with `cgroup_create_cgroup`; missing parents are created too.
    ///
    /// An existing group is reused, not an error.
    public func createGroup(_ path: String, controllers: [String]) throws(CgroupError) {
        try initialize()
        try withGroup(path, controllers: controllers) { (group) throws(CgroupError) in
            let status = LibcgroupStatus(cgroup_create_cgroup(group, 0))
            if !status.isSuccess {
                throw status.error(doing: "create", target: Self.describe(path, controllers))
            }
        }
    }

    /// Removes the empty group `path` from the hierarchies of `controllers`, with
    /// `cgroup_delete_cgroup_ext` and `CGFLAG_DELETE_EMPTY_ONLY`.
    ///
    /// A group that is already gone is not an error.
    public func deleteGroup(_ path: String, controllers: [String]) throws(CgroupError) {
        try initialize()
        try withGroup(path, controllers: controllers) { (group) throws(CgroupError) in
            let status = LibcgroupStatus(cgroup_delete_cgroup_ext(group, Int32(CGFLAG_DELETE_EMPTY_ONLY.rawValue)))
            if !status.isSuccess && !status.meansVanished {
                throw status.error(doing: "remove", target: Self.describe(path, controllers))
            }
        }
    }

    /// Moves process `pid` into group `path` of every hierarchy of `controllers`, with
    /// `cgroup_attach_task_pid`.
    public func attach(_ pid: Int32, to path: String, controllers: [String]) throws(CgroupError) {
        try initialize()
        try withGroup(path, controllers: controllers) { (group) throws(CgroupError) in
            let status = LibcgroupStatus(cgroup_attach_task_pid(group, pid))
            if !status.isSuccess {
                throw status.error(doing: "move process \(pid) into", target: Self.describe(path, controllers))
            }
        }
    }

    /// Writes `values` (file name → text) of `controller` in group `path`, with
    /// `cgroup_add_value_string` and `cgroup_modify_cgroup`.
    public func setValues(_ values: [(name: String, value: String)], controller: String, in path: String)
        throws(CgroupError)
    {
        try initialize()
        try withGroup(path, controllers: [controller]) { (group) throws(CgroupError) in
            guard let handle = cgroup_get_controller(group, controller) else {
                throw CgroupError(
                    code: .libcgroup, message: "Could not prepare the \(controller) settings of \"\(path)\".",
                    cause: "cgroup_get_controller returned nothing")
            }
            for (name, value) in values {
                let status = LibcgroupStatus(cgroup_add_value_string(handle, name, value))
                if !status.isSuccess {
                    throw status.error(
                        doing: "prepare \(name) = \(value) for", target: Self.describe(path, [controller]))
                }
            }
            let status = LibcgroupStatus(cgroup_modify_cgroup(group))
            if !status.isSuccess {
                let names = values.map(\.name).joined(separator: ", ")
                throw status.error(doing: "write \(names) of", target: Self.describe(path, [controller]))
            }
        }
    }

    /// Reads the `controller.stat` file of group `path` (such as `memory.stat`) with
    /// `cgroup_read_stats_begin`, as name → value pairs in file order.
    public func statistics(controller: String, in path: String) throws(CgroupError) -> [(String, String)] {
        try initialize()
        var handle: UnsafeMutableRawPointer?
        var stat = cgroup_stat()
        var pairs: [(String, String)] = []
        var status = LibcgroupStatus(cgroup_read_stats_begin(controller, path, &handle, &stat))
        defer { if handle != nil { cgroup_read_stats_end(&handle) } }
        while status.isSuccess {
            let value = Self.string(from: &stat.value).trimmingWhitespace()
            pairs.append((Self.string(from: &stat.name), value))
            status = LibcgroupStatus(cgroup_read_stats_next(&handle, &stat))
        }
        if !status.isEndOfSequence {
            throw status.error(doing: "read \(controller).stat of", target: Self.describe(path, [controller]))
        }
        return pairs
    }

    /// The processes in group `path` of `controller`, with `cgroup_get_procs`.
    public func processes(controller: String, in path: String) throws(CgroupError) -> [Int32] {
        try initialize()
        var pids: UnsafeMutablePointer<pid_t>?
        var count: Int32 = 0
        let status = path.withCString { name in
            controller.withCString { controllerName in
                LibcgroupStatus(
                    cgroup_get_procs(
                        UnsafeMutablePointer(mutating: name), UnsafeMutablePointer(mutating: controllerName), &pids,
                        &count))
            }
        }
        defer { free(pids) }
        if !status.isSuccess {
            if status.meansVanished { return [] }
            throw status.error(doing: "list the processes of", target: Self.describe(path, [controller]))
        }
        guard let pids else { return [] }
        return Array(UnsafeBufferPointer(start: pids, count: Int(count)))
    }

    /// Builds a `struct cgroup` for `path` with `controllers`, runs `body`, and frees it.
    private func withGroup(
        _ path: String,
        controllers: [String],
        _ body: (OpaquePointer) throws(CgroupError) -> Void
    ) throws(CgroupError) {
        var handle = cgroup_new_cgroup(path)
        guard let group = handle else {
            throw CgroupError(
                code: .libcgroup, message: "Could not describe the group \"\(path)\" to libcgroup.",
                cause: "cgroup_new_cgroup returned nothing")
        }
        defer { cgroup_free(&handle) }
        for controller in controllers where cgroup_add_controller(group, controller) == nil {
            throw CgroupError(
                code: .missingController,
                message: "Could not add the \(controller) controller to the group \"\(path)\". "
                    + CgroupError.howToGetAccess,
                cause: "cgroup_add_controller returned nothing")
        }
        try body(group)
    }

    /// Names group `path` of `controllers` for a message: `the group "a/b" in the memory and freezer hierarchies`.
    private static func describe(_ path: String, _ controllers: [String]) -> String {
        let plural = controllers.count > 1 ? "hierarchies" : "hierarchy"
        return "the group \"\(path)\" in the \(controllers.joined(separator: " and ")) \(plural)"
    }

    private static func string<T>(from tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
