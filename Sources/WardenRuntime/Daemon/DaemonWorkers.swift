/// What runs beside the daemon's loop, each a child of its task group fed from the loop: the
/// policy's hooks, the compression of suspended apps, the wait for killed groups that are slow
/// to empty, and the apps' memory-pressure sockets.
struct DaemonWorkers: Sendable {
    let hooks: HookRunner
    let compressor: SuspendedCompressor
    let killFinisher: KillFinisher
    /// The apps' memory-pressure sockets (`MEMORY_PRESSURE_WATCH`).
    let pressureEndpoints: PressureEndpoints
}
