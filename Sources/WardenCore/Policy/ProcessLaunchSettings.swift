/// The settings a process is launched with (`PolicyDiff.launchKeys`): what a running app's
/// process was started with, kept in its record and its checkpoint, so that a change a reload left
/// for the next launch is still known later, across a restart of the daemon too.
struct ProcessLaunchSettings: Sendable, Equatable, Codable {
    var command: String?
    var args: [String]
    var env: [String: String]
    var workingDirectory: String?
    var user: String?
    /// The task limit's count; nil for no bound.
    var tasksMax: Int?

    init(_ policy: AppPolicy) {
        command = policy.command
        args = policy.args
        env = policy.env
        workingDirectory = policy.workingDirectory
        user = policy.user
        tasksMax = policy.tasksMax.count
    }

    /// `policy` with these launch settings in place of its own.
    func applied(to policy: AppPolicy) -> AppPolicy {
        var launched = policy
        launched.command = command
        launched.args = args
        launched.env = env
        launched.workingDirectory = workingDirectory
        launched.user = user
        launched.tasksMax = tasksMax.map(TaskLimit.count) ?? .unlimited
        return launched
    }
}
