#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small kernel file (a cgroup number, `/proc/meminfo`) opened once and re-read with `pread`,
/// for reads often enough that opening the file each time would cost more than reading it.
///
/// A file that cannot be read (missing, or its group removed) reads as nil and is opened
/// again on the next read. Not thread-safe: one owner reads it.
public final class KeptOpenFile: @unchecked Sendable {
    /// The file's path.
    public let path: String
    private var fd: Int32 = -1
    private var buffer: [UInt8]

    /// Makes a reader of `path` for files up to `capacity` bytes; nothing is opened yet.
    public init(path: String, capacity: Int = 64) {
        self.path = path
        self.buffer = [UInt8](repeating: 0, count: max(16, capacity))
    }

    deinit {
        if fd >= 0 { Syscalls.close(fd) }
    }

    /// The decimal number at the start of the file; nil when it is missing, unreadable or says "max".
    public func readNumber() -> Int64? {
        guard let count = readBytes(), count > 0 else { return nil }
        var value: Int64 = 0
        var digits = 0
        for byte in buffer[0..<count] {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { break }
            value = value &* 10 &+ Int64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// The file's text; nil when it is missing or unreadable.
    public func readText() -> String? {
        guard let count = readBytes() else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Calls `body` with the file's bytes, read into the kept buffer (nothing allocated); nil
    /// when the file is missing or unreadable.
    public func withContents<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result? {
        guard let count = readBytes() else { return nil }
        return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    private func readBytes() -> Int? {
        if fd < 0 {
            guard case .success(let opened) = Syscalls.open(path, O_RDONLY) else { return nil }
            fd = opened
        }
        let result = buffer.withUnsafeMutableBytes { Syscalls.pread(fd, into: $0, at: 0) }
        guard case .success(let count) = result else {
            Syscalls.close(fd)
            fd = -1
            return nil
        }
        return count
    }
}
