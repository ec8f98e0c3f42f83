import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One daemon per device: exclusive `flock(2)` locks on a file in the state directory and on one
/// named after the cgroup root (`<lock-dir>/cgroup-<root>.lock`), each holding the pid of the
/// daemon that took it.
///
/// A second daemon with the same state directory, or the same cgroup root, finds a lock taken and
/// is refused before it touches anything. The locks go with the process (a daemon killed with
/// SIGKILL leaves nothing to clean up); the files stay and are reused.
final class InstanceLock: Sendable {
    private let descriptors: Mutex<[Int32]>

    private init(descriptors: [Int32]) {
        self.descriptors = Mutex(descriptors)
    }

    /// Takes both locks, or none.
    ///
    /// - Throws: `WardenDaemonError` naming the pid of the daemon that holds a lock, or the lock
    ///   file that cannot be opened.
    static func acquire(options: WardenDaemonOptions) throws(WardenDaemonError) -> InstanceLock {
        let files = [
            (path: options.stateDirectory + "/appwarden.lock", what: "state directory \"\(options.stateDirectory)\""),
            (
                path: options.lockDirectory + "/cgroup-\(options.cgroupRoot).lock",
                what: "cgroup root \"\(options.cgroupRoot)\""
            ),
        ]
        var taken: [Int32] = []
        for file in files {
            do {
                taken.append(try lock(path: file.path, what: file.what))
            } catch {
                for descriptor in taken { close(descriptor) }
                throw error
            }
        }
        return InstanceLock(descriptors: taken)
    }

    /// Opens `path` (creating its directory), locks it and writes this process's pid into it.
    private static func lock(path: String, what: String) throws(WardenDaemonError) -> Int32 {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if !directory.isEmpty && mkdir(directory, 0o755) != 0 && errno != EEXIST {
            throw WardenDaemonError(
                "The lock directory \"\(directory)\" cannot be created: \(String(cString: strerror(errno))).")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw WardenDaemonError(
                "The lock file \"\(path)\" cannot be opened: \(String(cString: strerror(errno))).")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            let holder = readPID(descriptor)
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw WardenDaemonError(
                    "The lock file \"\(path)\" cannot be locked: \(String(cString: strerror(reason))).")
            }
            let who = holder.map { "appwarden (pid \($0))" } ?? "another appwarden"
            throw WardenDaemonError(
                "\(who) already runs with the \(what) (lock \"\(path)\"); stop it first, or give this daemon "
                    + "its own state directory, cgroup root and socket.")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return descriptor
    }

    /// The pid written in a lock file, if it holds one.
    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Int32(String(text.prefix { $0.isNumber }))
    }

    /// Lets go of both locks (the next daemon may start).
    func release() {
        let taken = descriptors.withLock { descriptors in
            defer { descriptors.removeAll() }
            return descriptors
        }
        for descriptor in taken { close(descriptor) }
    }

    deinit {
        release()
    }
}
