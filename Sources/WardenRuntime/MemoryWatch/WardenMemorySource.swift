public import WardenCgroup

/// Where the daemon's memory sweeps get the apps' footprints and the memory the apps share.
///
/// `CgroupMemorySource` reads the groups' memory files and the host's; `WardenTesting`'s fake
/// driver plays a device's memory for tests in virtual time.
public protocol WardenMemorySource: Sendable {
    /// Measures `group` on every sweep from now on (until `untrack`).
    func track(_ group: AppGroup)

    /// Stops measuring the group of app `name`.
    func untrack(_ name: String)

    /// The footprint, in bytes, of every measured group whose app `include` accepts.
    func footprints(where include: (String) -> Bool) -> [String: Int64]

    /// The memory available to the apps and the memory they share, in bytes; nil when unknown.
    func deviceMemory() -> (available: Int64, total: Int64)?

    /// The v1 memory group whose limit models the device and that limit, where the kernel can
    /// notify usage crossing a threshold; nil elsewhere (cgroup2, or a device that is the host).
    func deviceUsageGroup() -> (group: String, limit: Int64)?

    /// Whether `deviceMemory` reads kept-open kernel files cheaply enough to be measured between
    /// sweeps, as often as every 10 ms near a threshold.
    var measuresDeviceBetweenSweeps: Bool { get }
}

extension WardenMemorySource {
    public func deviceUsageGroup() -> (group: String, limit: Int64)? { nil }

    public var measuresDeviceBetweenSweeps: Bool { false }
}
