public import Logging

/// Picks the driver that fits a host.
public enum CgroupDrivers {
    /// The driver for `layout`: `UnifiedDriver` on pure cgroup v2 hosts, `HybridDriver` wherever
    /// v1 hierarchies are mounted.
    ///
    /// - Throws: `CgroupError` with code `notMounted` when the host has no cgroup file system.
    public static func make(
        layout: CgroupLayout,
        configuration: CgroupConfiguration = CgroupConfiguration(),
        logger: Logger = Logger(label: "appwarden.cgroup")
    ) throws(CgroupError) -> any CgroupDriver {
        switch layout.kind {
        case .none:
            throw CgroupLayout.notMountedError
        case .unified:
            return try UnifiedDriver(layout: layout, configuration: configuration, logger: logger)
        case .hybrid, .legacy:
            return try HybridDriver(layout: layout, configuration: configuration, logger: logger)
        }
    }
}
