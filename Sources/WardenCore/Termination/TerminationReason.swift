/// Why an app stopped running (§1.6).
public enum TerminationReason: String, Sendable, Hashable, CaseIterable, Codable {
    case exited
    case crashed
    case userForceQuit
    case memoryPressure
    case backgroundTaskExpired
    case fetchTimeout
    case pushTimeout
    /// An accessory window ended without `complete-accessory` (rule 14).
    case accessoryTimeout
    case heldSharedResource
    case launchTimeout
    /// The launch could not be carried out (no program, a group that could not be made, a new
    /// process that did not reach its program): none of the app's code ran, so its preserved
    /// state and whether its next launch restores stay as they were.
    case launchFailed
    /// Killed at its own memory limit (jetsam's per-process limit): by the kernel at the limit
    /// of its group, or by appwarden when its footprint went over the limit in force for its
    /// state (`memory_max`, `foreground_limit`, `background_limit`).
    case memoryLimit
    /// Killed by the kernel's OOM killer for the device's memory (or a group above the app's),
    /// not at the app's own limit.
    case kernelOOMKill
    /// Kept above its background CPU budget (`[cpu] background_limit`) for two windows in a row:
    /// iOS's background CPU limit (rule 13).
    case cpuLimit
    case policyRemoved
    /// Restarted by a policy reload that changed how it is launched (`--restart-changed`).
    case policyChanged

    /// Whether the system (not the user, not the app itself) ended the app: its preserved
    /// state is kept and the next launch restores from it.
    public var isSystemTermination: Bool {
        switch self {
        case .memoryPressure, .backgroundTaskExpired, .fetchTimeout, .pushTimeout, .accessoryTimeout,
            .heldSharedResource, .launchTimeout, .memoryLimit, .kernelOOMKill, .cpuLimit:
            true
        case .exited, .crashed, .launchFailed, .userForceQuit, .policyRemoved, .policyChanged:
            false
        }
    }

    /// Whether the app is stopped politely (SIGTERM, then a kill after the termination grace);
    /// every other termination is an immediate SIGKILL of the whole group (rule 11).
    public var isGraceful: Bool {
        self == .userForceQuit || self == .policyRemoved || self == .policyChanged
    }
}
