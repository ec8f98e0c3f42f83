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
    /// Launch and drive the apps as usual, but only log what would be frozen or killed (the
    /// SIGTERM of a force-quit or a policy change is still sent).
    public var dryRun: Bool
    /// Stop every app when the daemon stops (otherwise they keep running for the next start).
    public var stopAppsOnExit: Bool
    /// How often footprints and host memory are sampled.
    public var sampleInterval: Duration
    /// Where the lock named after the cgroup root lives (`cgroup-<root>.lock`), shared by every
    /// daemon of the device.
    public var lockDirectory: String
    /// How long tasks of appwarden's root group must stall on memory within one second (PSI
    /// `some` for a warning, `full` for critical) before the kernel notifies appwarden.
    public var pressureStall: Duration
    /// Running groups frozen behind appwarden's back are looked for on every `n`th memory sweep
    /// (suspended ones thawed behind its back on every `suspendedSampleSweeps`th), where the
    /// freezer gives no notice of them (the v1 freezer); cgroup2's notices make both looks
    /// needless.
    public var freezerCheckSweeps: Int
    /// Suspended apps, frozen and unable to grow or thaw themselves, have their groups checked
    /// for a thaw behind appwarden's back every `n` sweep intervals only, which keeps an idle
    /// device with many suspended apps cheap. Where the memory watch runs they are measured
    /// when frozen and before every kill; elsewhere (memory sources that cannot measure the
    /// device between sweeps) on the same `n`th sweep.
    public var suspendedSampleSweeps: Int
    /// How many suspended apps' groups one such check looks at, going on where the last one
    /// stopped, so that a device with a thousand suspended apps costs an idle daemon no more than
    /// one with a hundred (each of them is then looked at every tenth check).
    public var suspendedChecksPerRound: Int = 100
    /// Hand the memory of apps killed for memory pressure back at once with `process_mrelease(2)`,
    /// instead of when their exit path gets to it (kernels before 5.15 only kill).
    public var releasesMemoryOnKill: Bool
    /// What `appwarden serve` serves in the daemon's task group: the control socket, the metrics
    /// listener, the service manager's notifications; nil serves nothing (tests and benchmarks
    /// that talk to the daemon directly).
    public var serving: DaemonServing?
    /// Lock the daemon's memory in RAM once it has started (`DaemonMemory.lock`), as `serve`
    /// does: measuring and killing then never wait for its own pages to be read back.
    public var locksMemory: Bool

    /// Makes options; only the policy path is required.
    public init(
        policyPath: String,
        socketPath: String = "/run/appwarden.sock",
        stateDirectory: String = "/var/lib/appwarden",
        cgroupRoot: String = "appwarden",
        dryRun: Bool = false,
        stopAppsOnExit: Bool = false,
        sampleInterval: Duration = .seconds(1),
        lockDirectory: String = "/run/appwarden",
        pressureStall: Duration = .milliseconds(150),
        freezerCheckSweeps: Int = 2,
        suspendedSampleSweeps: Int = 30,
        releasesMemoryOnKill: Bool = true,
        serving: DaemonServing? = nil,
        locksMemory: Bool = false
    ) {
        self.policyPath = policyPath
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
        self.cgroupRoot = cgroupRoot
        self.dryRun = dryRun
        self.stopAppsOnExit = stopAppsOnExit
        self.sampleInterval = sampleInterval
        self.lockDirectory = lockDirectory
        self.pressureStall = pressureStall
        self.freezerCheckSweeps = max(1, freezerCheckSweeps)
        self.suspendedSampleSweeps = max(1, suspendedSampleSweeps)
        self.releasesMemoryOnKill = releasesMemoryOnKill
        self.serving = serving
        self.locksMemory = locksMemory
    }

    /// The folder that is `app`'s own: its `HOME` when it runs as another user, with its
    /// restoration directory inside.
    public func appDirectory(of app: String) -> String {
        Self.appDirectory(of: app, in: stateDirectory)
    }

    /// The folder of `app` in the state directory `stateDirectory`.
    public static func appDirectory(of app: String, in stateDirectory: String) -> String {
        stateDirectory + "/apps/" + app
    }

    /// The restoration directory of `app`, in its folder.
    public func restorationDirectory(of app: String) -> String {
        appDirectory(of: app) + "/restoration"
    }

    /// Where an earlier daemon kept the restoration directory of `app`; moved into the app's
    /// folder at its next launch.
    public func formerRestorationDirectory(of app: String) -> String {
        stateDirectory + "/restoration/" + app
    }

    /// The directory of the apps' log files.
    public var logDirectory: String {
        stateDirectory + "/logs"
    }

    /// The log file of `app`.
    public func logPath(of app: String) -> String {
        logDirectory + "/" + app + ".log"
    }

    /// The folder of the apps' memory-pressure sockets (`MEMORY_PRESSURE_WATCH`): beside the
    /// control socket, named after it (`/run/appwarden.sock` → `/run/appwarden-pressure`).
    public var pressureDirectory: String {
        let slash = socketPath.lastIndex(of: "/")
        let folder = slash.map { String(socketPath[..<$0]) } ?? "."
        let name = slash.map { String(socketPath[socketPath.index(after: $0)...]) } ?? socketPath
        let stem = name.hasSuffix(".sock") ? String(name.dropLast(5)) : name
        return folder + "/" + stem + "-pressure"
    }
}
