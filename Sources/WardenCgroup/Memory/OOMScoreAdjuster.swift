/// Writes `oom_score_adj` for every process of an app, so the kernel's OOM killer follows the
/// same order as appwarden's own kill order if it acts first (lifecycle rule 10).
///
/// Processes that end while being adjusted are skipped. `procRoot` points the writer at a
/// fixture tree in tests.
public struct OOMScoreAdjuster: Sendable {
    /// The values the kernel accepts.
    public static let validRange = -1000...1000

    /// The root of the proc file system (`/proc`, or a fixture tree).
    public var procRoot: String

    /// Makes an adjuster that writes under `procRoot`.
    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// Sets `oom_score_adj` to `value` for each of `pids`.
    ///
    /// - Returns: The pids that were adjusted (the others had ended).
    /// - Throws: `CgroupError` when `value` is outside -1000...1000, or a write fails for another
    ///   reason than the process having ended (lowering the value needs root or CAP_SYS_RESOURCE).
    @discardableResult
    public func set(_ value: Int, for pids: [Int32]) throws(CgroupError) -> [Int32] {
        guard Self.validRange.contains(value) else {
            throw CgroupError(
                code: .malformed,
                message: "The oom_score_adj \(value) is outside the range -1000...1000 that the kernel accepts.",
                cause: "value out of range"
            )
        }
        var adjusted: [Int32] = []
        for pid in pids {
            let path = "\(procRoot)/\(pid)/oom_score_adj"
            switch Syscalls.writeText("\(value)", to: path) {
            case .success: adjusted.append(pid)
            case .failure(let error) where error.meansVanished: continue
            case .failure(let error): throw Self.writeError(error, value: value, path: path)
            }
        }
        return adjusted
    }

    /// The error for a failed write of `value` to the `oom_score_adj` file at `path`.
    static func writeError(_ error: Errno, value: Int, path: String) -> CgroupError {
        guard error == .accessDenied || error == .notPermitted else {
            return CgroupError.from(error, "set oom_score_adj \(value) through", path: path)
        }
        return CgroupError(
            code: .permissionDenied,
            message: "Setting oom_score_adj to \(value) through \"\(path)\" was refused: lowering it below the "
                + "process's minimum needs CAP_SYS_RESOURCE. Run appwarden as root with that capability, or "
                + "keep the foreground band at or above the value appwarden itself runs with.",
            cause: error.description
        )
    }

    /// The current `oom_score_adj` of `pid`, or nil when the process has ended.
    public func value(of pid: Int32) throws(CgroupError) -> Int? {
        let path = "\(procRoot)/\(pid)/oom_score_adj"
        switch Syscalls.readText(path) {
        case .success(let text):
            guard let value = Int(text.filter { !$0.isWhitespace }) else {
                throw CgroupError.malformed("oom_score_adj", path: path, detail: "\"\(text)\" is not a number")
            }
            return value
        case .failure(let error) where error.meansVanished: return nil
        case .failure(let error): throw CgroupError.from(error, "read", path: path)
        }
    }
}
