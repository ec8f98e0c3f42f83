/// `[hooks]`: commands the operator wants run when the core kills an app or the memory
/// pressure level changes, such as a notification or a script that records the moment.
///
/// The core decides when a hook runs (it returns `LifecycleAction.runHook`); the runtime runs
/// the command with `/bin/sh -c`, asynchronously, so a hook never delays a kill.
public struct HookSettings: Sendable, Equatable {
    /// Run after every kill the core decides (`on_kill`): memory pressure and every broken rule.
    public var onKill: String?
    /// Run when the memory pressure level changes (`on_pressure`).
    public var onPressure: String?
    /// How long a hook may run before its process group is killed (`timeout`, 10 s).
    public var timeout: Duration

    public init(onKill: String? = nil, onPressure: String? = nil, timeout: Duration = .seconds(10)) {
        self.onKill = onKill
        self.onPressure = onPressure
        self.timeout = timeout
    }
}
