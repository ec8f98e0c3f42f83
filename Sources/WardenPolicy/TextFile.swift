#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reading a policy or scenario file, with a sentence that names the real problem when it
/// cannot be read: missing, a directory, a device or pipe rather than a regular file, empty,
/// unreadable (with the system's reason), not UTF-8.
public enum TextFile {
    /// The largest file read, bytes: a policy or scenario is text a person writes.
    public static let maximumBytes = 16 << 20

    /// The text of the regular file at `path`, or the sentence saying why there is none
    /// ("the file is empty.", "the path is a character device (such as /dev/null), not a
    /// regular file.", "the file cannot be read: Permission denied.").
    public static func read(_ path: String) -> Result<String, Failure> {
        // Non-blocking, so that a FIFO without a writer does not hang the reader.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return .failure(Failure("the file does not exist."))
            case ENOTDIR: return .failure(Failure("a part of the path is not a directory, so the file does not exist."))
            default: return .failure(Failure("the file cannot be read: \(Self.reason(code))."))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return .failure(Failure("the file cannot be read: \(Self.reason(errno))."))
        }
        if let kind = Self.kind(of: status.st_mode) {
            return .failure(Failure(kind))
        }
        guard status.st_size <= maximumBytes else {
            return .failure(
                Failure(
                    "the file has \(status.st_size) bytes, more than the \(maximumBytes) a text file here may have."))
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { readSome(descriptor, into: $0) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(Failure("the file cannot be read: \(Self.reason(errno))."))
            }
            bytes += buffer[0..<count]
            if bytes.count > maximumBytes {
                return .failure(Failure("the file has more than the \(maximumBytes) bytes a text file here may have."))
            }
        }
        guard !bytes.isEmpty else {
            return .failure(.empty)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(Failure("the file is not UTF-8 text."))
        }
        return .success(text)
    }

    /// Why a file could not be read, as a sentence to follow its name.
    public struct Failure: Error, Sendable, Equatable {
        public var sentence: String

        init(_ sentence: String) {
            self.sentence = sentence
        }

        /// The file has no bytes at all.
        public static let empty = Failure("the file is empty.")
    }

    /// What the path is when it is not a regular file, as a sentence; nil for a regular file.
    private static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "the path is a directory, not a file."
        case S_IFCHR: "the path is a character device (such as /dev/null), not a regular file."
        case S_IFBLK: "the path is a block device, not a regular file."
        case S_IFIFO: "the path is a named pipe (FIFO), not a regular file."
        case S_IFSOCK: "the path is a socket, not a regular file."
        default: "the path is not a regular file."
        }
    }

    /// The system's text for `code`, with its symbolic number: "Permission denied (errno 13)".
    private static func reason(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}

/// One `read(2)` into `buffer` (outside `TextFile`, whose own `read` would shadow the system's).
private func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
