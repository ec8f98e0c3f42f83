/// How `appwarden serve` runs: where it keeps its state, which cgroup root it uses, and
/// whether it only pretends to freeze and kill.
public struct WardenDaemonOptions: Sendable {
    /// The policy file (re-read by `policy reload`).
    public var policyPath: String
    /// The control socket's path.
    public var socketPath: String
    /// Where the journal, the logs and the restoration directories live.
    public var stateDirectory: String
    /// The name of appwarden's root group in every cgroup hierarchy.
    public var cgroupRoot: String
    /// Log what would be frozen or killed, and do neither.
    public var dryRun: Bool
    /// Stop every app when the daemon stops (otherwise they keep running for the next start).
    public var stopAppsOnExit: Bool
    /// How often footprints and host memory are sampled.
    public var sampleInterval: Duration
    /// Hand the memory of apps killed for memory pressure back at once with `process_mrelease(2)`,
    /// instead of when their exit path gets to it (kernels before 5.15 only kill).
    public var releasesMemoryOnKill: Bool

    /// Makes options; only the policy path is required.
    public init(
        policyPath: String,
        socketPath: String = "/run/appwarden.sock",
        stateDirectory: String = "/var/lib/appwarden",
        cgroupRoot: String = "appwarden",
        dryRun: Bool = false,
        stopAppsOnExit: Bool = false,
        sampleInterval: Duration = .seconds(1),
        releasesMemoryOnKill: Bool = true
    ) {
        self.policyPath = policyPath
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
        self.cgroupRoot = cgroupRoot
        self.dryRun = dryRun
        self.stopAppsOnExit = stopAppsOnExit
        self.sampleInterval = sampleInterval
        self.releasesMemoryOnKill = releasesMemoryOnKill
    }

    /// The restoration directory of `app`.
    public func restorationDirectory(of app: String) -> String {
        stateDirectory + "/restoration/" + app
    }

    /// The log file of `app`.
    public func logPath(of app: String) -> String {
        stateDirectory + "/logs/" + app + ".log"
    }
}
