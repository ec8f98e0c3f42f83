import Foundation
public import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What this host offers the tests that run real processes in real cgroups.
///
/// The condition traits (`.requiresRootCgroups`, `.requiresBallast`, …) ask it whether a test
/// can run here; the tests take the cgroup layout and the executables' paths from it.
public enum TestHost {
    /// Whether the tests run as root.
    public static var isRoot: Bool { getuid() == 0 }

    /// The cgroup layout of this host, or nil when it cannot be read.
    public static let cgroupLayout: CgroupLayout? = try? CgroupLayout.read()

    /// Where the cgroup2 hierarchy is mounted, if it is.
    public static var unifiedMountPoint: String? { cgroupLayout?.unifiedMountPoint }

    /// Where the v1 memory hierarchy is mounted, if it is.
    public static var v1MemoryMountPoint: String? { cgroupLayout?.v1Hierarchies["memory"]?.mountPoint }

    /// Whether the tests can create groups in the cgroup2 mount, the freeze source of the layout
    /// (`cgroup.freeze`, `cgroup.kill`): root, and a cgroup2 mount whose `cgroup.procs` is writable.
    public static var canCreateUnifiedGroups: Bool {
        cgroupLayout?.freezeSource == .unified && canCreateGroups(under: unifiedMountPoint)
    }

    /// Whether the tests can create groups in the v1 memory hierarchy.
    public static var canCreateV1MemoryGroups: Bool { canCreateGroups(under: v1MemoryMountPoint) }

    /// Whether the tests can create groups in the v1 freezer hierarchy.
    public static var canCreateV1FreezerGroups: Bool {
        canCreateGroups(under: cgroupLayout?.v1Hierarchies["freezer"]?.mountPoint)
    }

    /// Whether the host has a pids controller, in a v1 hierarchy or the cgroup2 mount.
    public static var hasPidsController: Bool {
        guard let layout = cgroupLayout else { return false }
        return layout.v1Hierarchies["pids"] != nil || layout.unifiedControllers.contains("pids")
    }

    /// Whether the cgroup2 mount has pressure stall information (`memory.pressure`).
    public static var hasUnifiedPressureFiles: Bool {
        guard let mountPoint = unifiedMountPoint else { return false }
        return access(mountPoint + "/memory.pressure", R_OK) == 0
    }

    /// Whether a trigger can be armed on the whole device's memory pressure (`/proc/pressure/memory`).
    public static var canArmDevicePressureTrigger: Bool { access("/proc/pressure/memory", W_OK) == 0 }

    /// The ballast workload executable: `APPWARDEN_BALLAST`, or the one built with the tests.
    public static let ballastPath: String? = builtExecutable(named: "ballast", overriddenBy: "APPWARDEN_BALLAST")

    /// The `appwarden` executable: `APPWARDEN_EXECUTABLE`, or the one built with the tests.
    public static let appwardenPath: String? = builtExecutable(
        named: "appwarden", overriddenBy: "APPWARDEN_EXECUTABLE")

    /// Whether the tests run as root and can write the `cgroup.procs` of the hierarchy at `mountPoint`.
    private static func canCreateGroups(under mountPoint: String?) -> Bool {
        guard isRoot, let mountPoint else { return false }
        return access(mountPoint + "/cgroup.procs", W_OK) == 0
    }

    /// The executable `name` of this package: the path in the environment variable `variable`
    /// when it is set, else the first found next to the test bundle, in its parent folder, or in
    /// the debug folder of a build folder (`.build*`) of the package.
    private static func builtExecutable(named name: String, overriddenBy variable: String) -> String? {
        if let override = ProcessInfo.processInfo.environment[variable] {
            return access(override, X_OK) == 0 ? override : nil
        }
        var candidates: [String] = []
        if let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = (bundle as NSString).deletingLastPathComponent
            candidates += [folder + "/" + name, (folder as NSString).deletingLastPathComponent + "/" + name]
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: package)) ?? []
        for folder in names.sorted() where folder.hasPrefix(".build") {
            candidates.append("\(package)/\(folder)/debug/\(name)")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }
}
