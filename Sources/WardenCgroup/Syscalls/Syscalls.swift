#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system calls the cgroup layer makes, each wrapped once.
///
/// Every wrapper retries on `EINTR` (except `close`, which Linux must not retry) and returns a
/// `Result` carrying the `Errno` on failure, after swift-system's `Internals/Syscalls.swift`.
enum Syscalls {
    /// Runs `body` until it does not fail with `EINTR`; a negative result is an error from `errno`.
    @inline(__always)
    static func retryingInterrupts<T: BinaryInteger>(_ body: () -> T) -> Result<T, Errno> {
        while true {
            let result = body()
            if result >= 0 { return .success(result) }
            let error = Errno.current
            if error != .interrupted { return .failure(error) }
        }
    }

    /// Opens `path` with `open(2)`; `O_CLOEXEC` is always added.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Result<Int32, Errno> {
        retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Closes `fd` with `close(2)`, without retrying (the descriptor is gone even after `EINTR`).
    @discardableResult
    static func close(_ fd: Int32) -> Result<Void, Errno> {
        Glibc.close(fd) == 0 ? .success(()) : .failure(.current)
    }

    /// Reads from `fd` at `offset` into `buffer` with `pread(2)`.
    static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Result<Int, Errno> {
        retryingInterrupts { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Reads from `fd` into `buffer` with `read(2)`.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        retryingInterrupts { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Writes `bytes` to `fd` with `write(2)`.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        retryingInterrupts { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// Waits for events on `fds` with `poll(2)`; a timeout of -1 waits forever.
    ///
    /// On `EINTR` the call is repeated with the full timeout again, which can only lengthen the wait.
    static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) -> Result<Int32, Errno> {
        let count = nfds_t(fds.count)
        return fds.withUnsafeMutableBufferPointer { buffer in
            retryingInterrupts { Glibc.poll(buffer.baseAddress, count, timeoutMilliseconds) }
        }
    }

    /// Sends `signal` to `pid` with `kill(2)`.
    static func kill(_ pid: pid_t, _ signal: Int32) -> Result<Void, Errno> {
        retryingInterrupts { Glibc.kill(pid, signal) }.map { _ in () }
    }

    /// Creates the directory `path` with `mkdir(2)`.
    static func mkdir(_ path: String, mode: mode_t = 0o755) -> Result<Void, Errno> {
        retryingInterrupts { Glibc.mkdir(path, mode) }.map { _ in () }
    }

    /// Removes the directory `path` with `rmdir(2)`.
    static func rmdir(_ path: String) -> Result<Void, Errno> {
        retryingInterrupts { Glibc.rmdir(path) }.map { _ in () }
    }

    /// Whether `path` exists, with `access(2)` and `F_OK`.
    static func exists(_ path: String) -> Bool {
        Glibc.access(path, F_OK) == 0
    }

    /// Reads the whole file at `path` as UTF-8 text with `open`, `read` and `close`.
    static func readText(_ path: String) -> Result<String, Errno> {
        let opened = open(path, O_RDONLY)
        guard case .success(let fd) = opened else { return opened.map { _ in "" } }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let result = chunk.withUnsafeMutableBytes { read(fd, into: $0) }
            switch result {
            case .failure(let error):
                return .failure(error)
            case .success(0):
                return .success(String(decoding: bytes, as: UTF8.self))
            case .success(let count):
                bytes.append(contentsOf: chunk[0..<count])
            }
        }
    }

    /// Writes `text` to the existing file at `path` in one `write(2)`, as cgroup files expect.
    static func writeText(_ text: String, to path: String) -> Result<Void, Errno> {
        let opened = open(path, O_WRONLY)
        guard case .success(let fd) = opened else { return opened.map { _ in () } }
        defer { close(fd) }
        var text = text
        return text.withUTF8 { utf8 in
            write(fd, UnsafeRawBufferPointer(utf8)).map { _ in () }
        }
    }

    /// Lists the names in directory `path` with `opendir(3)` and `readdir(3)`, without "." and "..".
    static func listDirectory(_ path: String) -> Result<[String], Errno> {
        guard let directory = opendir(path) else { return .failure(.current) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// Whether `path` is a directory (not following a final symbolic link), with `lstat(2)`.
    static func isDirectory(_ path: String) -> Bool {
        var info = Glibc.stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
