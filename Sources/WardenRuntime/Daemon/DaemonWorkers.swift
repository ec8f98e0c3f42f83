/// What runs beside the daemon's loop, each a child of its task group fed from the loop: the
/// policy's hooks and the compression of suspended apps.
struct DaemonWorkers: Sendable {
    let hooks: HookRunner
    let compressor: SuspendedCompressor
}
