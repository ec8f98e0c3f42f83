/// How a process ended, as the runtime saw it.
public enum ProcessEnd: Sendable, Hashable {
    /// Exit status 0, or a signal the app was sent by appwarden.
    case exited(code: Int32)
    /// A non-zero exit status or a fatal signal appwarden did not send.
    case crashed(description: String)
    /// The kernel's OOM killer ended it (the app's group counted the kill): never a crash.
    case oomKilled(OOMKill)
}
