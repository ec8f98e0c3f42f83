/// What to start, as whom, where its output goes and which group it belongs to.
public struct SpawnRequest: Sendable, Hashable {
    /// Whose identity the process takes.
    public enum User: Sendable, Hashable {
        /// A user name, resolved with `getpwnam_r`; the groups come from `getgrouplist`.
        case name(String)
        /// Numeric ids, with the supplementary groups to set.
        case ids(uid: UInt32, gid: UInt32, supplementaryGroups: [UInt32] = [])

        /// A user as a policy names it: a numeric user id (`65534`), whose group and
        /// supplementary groups come from its passwd entry where it has one (else its group is
        /// the same number and it has none), or a name.
        public static func policy(_ text: String) -> User {
            guard let uid = UInt32(text) else { return .name(text) }
            if case .success(let found?) = Syscalls.lookUpUser(id: uid) {
                return .ids(uid: uid, gid: found.gid, supplementaryGroups: found.groups)
            }
            return .ids(uid: uid, gid: uid)
        }

        /// The user and group ids, where they can be found.
        public var ids: (uid: UInt32, gid: UInt32)? {
            identity.map { ($0.uid, $0.gid) }
        }

        /// The user and group ids and the supplementary groups, where they can be found.
        public var identity: (uid: UInt32, gid: UInt32, groups: [UInt32])? {
            switch self {
            case .ids(let uid, let gid, let groups): return (uid, gid, groups)
            case .name(let name):
                guard case .success(let found?) = Syscalls.lookUpUser(name) else { return nil }
                return found
            }
        }
    }

    /// How the child is created.
    public enum Method: Sendable, Hashable {
        /// `clone3(CLONE_INTO_CGROUP | CLONE_PIDFD)` where the kernel has it, else the fallback.
        case automatic
        /// `fork`, with every group joined by the child before `execve` (what old kernels get).
        case forkFallback
    }

    /// The program: an absolute path, a path relative to the working directory, or a name looked up in `PATH`.
    public var executable: String
    /// The arguments after the program name (`argv[1...]`).
    public var arguments: [String]
    /// The whole environment of the process; `PATH` here also guides the program lookup.
    public var environment: [String: String]
    /// The directory the process starts in; nil keeps appwarden's own.
    public var workingDirectory: String?
    /// Whose identity the process takes; nil keeps appwarden's own.
    public var user: User?
    /// The file standard output is appended to (created if missing); nil sends it to `/dev/null`.
    public var standardOutputPath: String?
    /// The file standard error is appended to (created if missing); nil sends it to `/dev/null`.
    public var standardErrorPath: String?
    /// When set, and standard output and error name the same file, they go through a log relay
    /// (a process outside the app's groups, ending with the app's output) that timestamps each
    /// line and rotates the file at a size.
    public var logRotation: LogRotation?
    /// The process's `oom_score_adj` (-1000 to 1000), written before `execve`; nil inherits appwarden's.
    public var oomScoreAdj: Int?
    /// The app's group; the process runs no code of its own outside it.
    public var group: AppGroup?
    /// Whether the process starts a new session (`setsid`), detached from appwarden's terminal.
    public var newSession: Bool
    /// How the child is created.
    public var method: Method
    /// How long the spawn waits for the child to reach `execve`: a child that takes longer (its
    /// group frozen by someone else, a device stalled on memory) is killed and the spawn fails,
    /// so that the caller is never held for ever. Nil waits for ever.
    public var startTimeout: Duration?

    /// The start timeout a request has unless it says otherwise: long enough for a slow device
    /// under memory pressure to read a program in, short of holding its caller for long.
    public static let defaultStartTimeout: Duration = .seconds(10)

    /// Makes a request; only the program is required.
    public init(
        executable: String,
        arguments: [String] = [],
        environment: [String: String] = [:],
        workingDirectory: String? = nil,
        user: User? = nil,
        standardOutputPath: String? = nil,
        standardErrorPath: String? = nil,
        oomScoreAdj: Int? = nil,
        group: AppGroup? = nil,
        newSession: Bool = true,
        method: Method = .automatic,
        logRotation: LogRotation? = nil,
        startTimeout: Duration? = SpawnRequest.defaultStartTimeout
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.user = user
        self.standardOutputPath = standardOutputPath
        self.standardErrorPath = standardErrorPath
        self.oomScoreAdj = oomScoreAdj
        self.group = group
        self.newSession = newSession
        self.method = method
        self.logRotation = logRotation
        self.startTimeout = startTimeout
    }
}
