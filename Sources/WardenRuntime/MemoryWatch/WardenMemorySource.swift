public import WardenCgroup
public import WardenCore

/// Where the daemon measures memory: the apps' footprints, the memory the apps share, and what
/// an app's group says of OOM kills.
///
/// `CgroupMemorySource` reads the groups' memory files and the host's; `WardenTesting`'s fake
/// driver plays a device's memory for tests in virtual time.
public protocol WardenMemorySource: Sendable {
    /// Measures `group` from now on (until `untrack`).
    func track(_ group: AppGroup)

    /// Stops measuring the group of app `name`.
    func untrack(_ name: String)

    /// The footprint, the part of it in swap and the RAM that part takes, of the measured groups
    /// of the apps `names` (apps not measured are passed over).
    func measurements(of names: [String]) -> [String: AppMemoryMeasurement]

    /// What `swapped` bytes of an app's memory take of RAM on the device's swap now (their
    /// compressed size in a zram, nothing on a drive); nil when not known.
    func swappedInRAM(_ swapped: Int64) -> Int64?

    /// The memory available to the apps and the memory they share, in bytes; nil when unknown.
    func deviceMemory() -> (available: Int64, total: Int64)?

    /// The v1 memory group whose limit models the device and that limit, where the kernel can
    /// notify usage crossing a threshold; nil elsewhere (cgroup2, or a device that is the host).
    func deviceUsageGroup() -> (group: String, limit: Int64)?

    /// What the measured group of app `name` says of OOM kills now; nil when it cannot be read.
    func oomState(of name: String) -> GroupOOMState?

    /// What swap can still take and the device's memory stall, where the device has swap; nil
    /// where it has none (or the device is a group with a limit of its own).
    func swapFigures() -> SwapFigures?
}

extension WardenMemorySource {
    public func deviceUsageGroup() -> (group: String, limit: Int64)? { nil }

    public func oomState(of name: String) -> GroupOOMState? { nil }

    public func swapFigures() -> SwapFigures? { nil }

    public func swappedInRAM(_ swapped: Int64) -> Int64? { nil }
}
