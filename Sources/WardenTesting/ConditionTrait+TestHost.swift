public import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Conditions on the host for tests that run real processes in real cgroups, each with the
/// sentence that a skipped test reports.
///
/// A test that needs several things lists several traits:
/// `@Suite(.serialized, .requiresRootCgroups, .requiresBallast)`.
extension Trait where Self == ConditionTrait {
    /// The test runs only as root.
    public static var requiresRoot: Self {
        enabled(if: TestHost.isRoot, "Needs root.")
    }

    /// The test runs only as root on a host whose groups freeze and die through a cgroup2 mount.
    public static var requiresRootCgroups: Self {
        enabled(
            if: TestHost.canCreateUnifiedGroups,
            "Needs root and a cgroup2 mount to create, freeze and kill groups in.")
    }

    /// The test runs only where it can create groups in a v1 memory hierarchy.
    public static var requiresV1Memory: Self {
        enabled(if: TestHost.canCreateV1MemoryGroups, "Needs root and a v1 memory hierarchy to create groups in.")
    }

    /// The test runs only where it can create groups in a v1 freezer hierarchy.
    public static var requiresV1Freezer: Self {
        enabled(if: TestHost.canCreateV1FreezerGroups, "Needs root and a v1 freezer hierarchy to create groups in.")
    }

    /// The test runs only on a host with a pids controller.
    public static var requiresPidsController: Self {
        enabled(if: TestHost.hasPidsController, "Needs a pids controller, in a v1 hierarchy or the cgroup2 mount.")
    }

    /// The test runs only where the cgroup2 mount has pressure stall information.
    public static var requiresUnifiedPressureFiles: Self {
        enabled(
            if: TestHost.hasUnifiedPressureFiles,
            "Needs pressure stall information in the cgroup2 mount (memory.pressure).")
    }

    /// The test runs only where it can arm a trigger on the whole device's memory pressure.
    public static var requiresDevicePressureTrigger: Self {
        enabled(
            if: TestHost.canArmDevicePressureTrigger,
            "Needs a writable /proc/pressure/memory to arm a trigger on the device's memory pressure.")
    }

    /// The test runs only where the ballast workload executable is found.
    public static var requiresBallast: Self {
        enabled(
            if: TestHost.ballastPath != nil,
            "Needs the ballast executable: build the package, or name it in APPWARDEN_BALLAST.")
    }

    /// The test runs only where the `appwarden` executable is found.
    public static var requiresAppwardenExecutable: Self {
        enabled(
            if: TestHost.appwardenPath != nil,
            "Needs the appwarden executable: build the package, or name it in APPWARDEN_EXECUTABLE.")
    }

    /// The test runs only where the executable at `path` is found.
    public static func requiresExecutable(_ path: String) -> Self {
        enabled(if: access(path, X_OK) == 0, "Needs the executable \(path).")
    }
}
