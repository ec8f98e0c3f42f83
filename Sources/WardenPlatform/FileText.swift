#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whole files read and written as text, with errors that say what the system said.
public enum FileText {
    /// Why a file could not be written: the system's reason, such as "Permission denied".
    public struct WriteFailure: Error, CustomStringConvertible, Sendable {
        public let code: Int32
        public var description: String { String(cString: strerror(code)) }
    }

    /// Writes `text` to `path` through a temporary file beside it, renamed over the old file once
    /// whole, so a reader sees the old text or the new, never part of it. The file is made with
    /// mode 0644 (less the umask).
    public static func writeAtomically(_ text: String, to path: String) throws(WriteFailure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteFailure(code: errno) }
        var failure: Int32 = 0
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw WriteFailure(code: failure)
        }
    }
}
