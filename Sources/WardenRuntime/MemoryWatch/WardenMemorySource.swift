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
}
