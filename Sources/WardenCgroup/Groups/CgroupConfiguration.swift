/// Where appwarden puts its groups and how long it waits for the kernel.
public struct CgroupConfiguration: Sendable, Hashable {
    /// Where appwarden's root group goes in the cgroup2 hierarchy.
    public enum Placement: String, Sendable, Hashable {
        /// Under the hierarchy's root, such as `/sys/fs/cgroup/appwarden` (needs root).
        case hierarchyRoot
        /// Under the daemon's own group, which systemd delegated (`Delegate=yes`); the daemon is
        /// first moved into a leaf so controllers can be enabled for the apps.
        case delegated
        /// In a transient scope unit of its own (`Delegate=yes`) beside the daemon's service,
        /// started through `systemd-run --scope` with a keeper process. The service's own group
        /// never has controllers enabled, so systemd can place a restarted daemon in it again
        /// (systemd before 254 has no `DelegateSubgroup=`).
        case systemdScope
        /// When running as a systemd service (`INVOCATION_ID` is set) inside a group other than
        /// the root: `delegated` when the daemon already sits in its `daemon` leaf
        /// (`DelegateSubgroup=daemon`) or the memory controller is not on cgroup2, otherwise
        /// `systemdScope`. Outside systemd, `hierarchyRoot`.
        case automatic
    }

    /// The name of appwarden's root group (default "appwarden").
    public var rootName: String
    /// Where the root group goes in the cgroup2 hierarchy; v1 roots are always at the top.
    public var placement: Placement
    /// The leaf the daemon moves into under `delegated` placement (default "daemon").
    public var daemonLeafName: String
    /// The scope unit that holds the app groups under `systemdScope` placement (default
    /// "appwarden-apps.scope").
    public var scopeUnitName: String
    /// Freeze through the v1 freezer even when a cgroup2 mount could do it.
    public var prefersV1Freezer: Bool
    /// How long to wait for a group to report frozen (default 1 s).
    public var freezeTimeout: Duration
    /// How long to wait for a killed group to empty (default 5 s).
    public var killTimeout: Duration

    /// Makes a configuration; every value has a default.
    public init(
        rootName: String = "appwarden",
        placement: Placement = .automatic,
        daemonLeafName: String = "daemon",
        scopeUnitName: String = "appwarden-apps.scope",
        prefersV1Freezer: Bool = false,
        freezeTimeout: Duration = .seconds(1),
        killTimeout: Duration = .seconds(5)
    ) {
        self.rootName = rootName
        self.placement = placement
        self.daemonLeafName = daemonLeafName
        self.scopeUnitName = scopeUnitName
        self.prefersV1Freezer = prefersV1Freezer
        self.freezeTimeout = freezeTimeout
        self.killTimeout = killTimeout
    }
}
