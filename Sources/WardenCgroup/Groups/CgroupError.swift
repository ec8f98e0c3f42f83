/// An error of the cgroup layer: what went wrong, in a sentence that names the path, and why.
///
/// Follows the shape of NIO's `FileSystemError`: a machine-readable code, a human sentence and the
/// underlying cause. `description` reads `"\(code): \(message) (\(cause))"`.
public struct CgroupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// No cgroup file system is mounted where appwarden looked.
        case notMounted
        /// A controller appwarden needs (memory, freezer) is not available.
        case missingController
        /// The kernel refused access to a cgroup file or directory.
        case permissionDenied
        /// A group, file or process does not exist.
        case notFound
        /// An operation did not complete within its time limit.
        case timeout
        /// Reading or writing a file failed for another reason.
        case io
        /// A file held text that could not be understood.
        case malformed
        /// libcgroup reported a failure.
        case libcgroup
    }

    /// What kind of failure this is.
    public var code: Code
    /// A full sentence that names the operand and, where it helps, how to fix it.
    public var message: String
    /// The underlying cause: an errno name, a libcgroup code or a short detail.
    public var cause: String

    /// Makes an error from its three parts.
    public init(code: Code, message: String, cause: String) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        "\(code.rawValue): \(message) (\(cause))"
    }
}

extension CgroupError {
    /// What appwarden needs to manage cgroups, said once so every message gives the same advice.
    static let howToGetAccess =
        "appwarden needs a writable cgroup tree: mount cgroup2 (mount -t cgroup2 none /sys/fs/cgroup), "
        + "run it under systemd with Delegate=yes, or run it as root."

    /// Maps a failed system call on `path` to an error with a sentence that says what was being done.
    ///
    /// - Parameters:
    ///   - errno: The error the call returned.
    ///   - action: What appwarden tried, as a verb phrase ("write to", "create the group").
    ///   - path: The file or directory.
    static func from(_ errno: Errno, _ action: String, path: String) -> CgroupError {
        switch errno.rawValue {
        case Errno.accessDenied.rawValue, Errno.notPermitted.rawValue, Errno.readOnlyFileSystem.rawValue:
            return CgroupError(
                code: .permissionDenied,
                message: "Permission to \(action) \"\(path)\" was denied. \(howToGetAccess)",
                cause: errno.description
            )
        case Errno.noSuchFile.rawValue, Errno.noSuchProcess.rawValue:
            return CgroupError(
                code: .notFound,
                message: "Could not \(action) \"\(path)\" because it does not exist.",
                cause: errno.description
            )
        default:
            return CgroupError(
                code: .io,
                message: "Could not \(action) \"\(path)\".",
                cause: errno.description
            )
        }
    }

    /// An error for a file whose text could not be parsed.
    static func malformed(_ what: String, path: String, detail: String) -> CgroupError {
        CgroupError(
            code: .malformed,
            message: "The \(what) in \"\(path)\" could not be read: \(detail).",
            cause: "unexpected contents"
        )
    }
}
