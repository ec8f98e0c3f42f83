import WardenCgroup
public import WardenCore

/// What a valid policy may still get wrong, in sentences that `policy check` and `policy reload`
/// both print: apps whose program cannot be found here, and, for a reload, hook commands the
/// running policy did not run and apps of other users that cannot reach their folders.
public enum PolicyWarnings {
    /// The warnings for `policy`; for a reload, `running` is the policy in force before it, and
    /// a `[hooks]` command it did not have is named; with the daemon's `stateDirectory`, an app
    /// of another user that could not reach its folder there is named too.
    public static func warnings(
        for policy: Policy, replacing running: Policy? = nil, stateDirectory: String? = nil
    ) -> [String] {
        missingPrograms(policy) + (running.map { newHooks(policy.hooks, replacing: $0.hooks) } ?? [])
            + (stateDirectory.map { unreachableFolders(policy, stateDirectory: $0) } ?? [])
    }

    /// A sentence for each app that runs as another user (not root) who may not pass through a
    /// directory above its folder in `stateDirectory` (`<state>/apps/APP`): it could neither
    /// save its state nor use its HOME.
    public static func unreachableFolders(_ policy: Policy, stateDirectory: String) -> [String] {
        policy.apps.compactMap { app -> String? in
            guard let identity = app.user.map(SpawnRequest.User.policy)?.identity else { return nil }
            let folder = WardenDaemonOptions.appDirectory(of: app.name, in: stateDirectory)
            return AppFolder.blockedPassage(to: folder, for: identity).map { "app \"\(app.name)\": \($0)" }
        }
    }

    /// A sentence for each app whose command cannot be found as its launch would look for it.
    public static func missingPrograms(_ policy: Policy) -> [String] {
        policy.apps.compactMap { app -> String? in
            guard let command = app.command else { return nil }
            do throws(CgroupError) {
                _ = try ProcessSpawner.locateExecutable(
                    command, environment: app.env, workingDirectory: app.workingDirectory ?? "/")
                return nil
            } catch {
                return "app \"\(app.name)\": \(error.message) Opening it will fail until it is installed."
            }
        }
    }

    /// A sentence for each hook command that `hooks` runs and `running` did not (a new `[hooks]`
    /// section, or a changed command): the daemon runs it with `/bin/sh` as its own user.
    static func newHooks(_ hooks: HookSettings, replacing running: HookSettings) -> [String] {
        let named: [(key: String, command: String?, before: String?, when: String)] = [
            ("on_kill", hooks.onKill, running.onKill, "after each kill"),
            ("on_pressure", hooks.onPressure, running.onPressure, "at each change of the pressure level"),
        ]
        return named.compactMap { hook in
            guard let command = hook.command, command != hook.before else { return nil }
            let what = hook.before == nil ? "is new" : "changed"
            return "[hooks] \(hook.key) \(what): the daemon now runs \"\(command)\" with /bin/sh as its own user "
                + "\(hook.when)."
        }
    }
}
