import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One daemon per device: exclusive `flock(2)` locks on one file named after the cgroup root
/// (`<lock-dir>/cgroup-<root>.lock`) and one in the state directory, each holding the pid of the
/// daemon that took it.
///
/// A second daemon with the same cgroup root, or the same state directory, finds a lock taken and
/// is refused before it touches anything: the cgroup root's lock is taken first, so a refused
/// daemon creates no state directory. The locks go with the process (a daemon killed with
/// SIGKILL leaves its files, which the next daemon reuses); a daemon that stops removes its lock
/// files, so that files named after cgroup roots no longer used do not pile up.
final class InstanceLock: Sendable {
    private let held: Mutex<[(path: String, descriptor: Int32)]>
    /// The directories the locks made, removed again on release when they are still empty.
    private let made: Mutex<[String]>

    private init(held: [(path: String, descriptor: Int32)], made: [String]) {
        self.held = Mutex(held)
        self.made = Mutex(made)
    }

    /// Takes both locks, or none.
    ///
    /// - Throws: `WardenDaemonError` naming the pid of the daemon that holds a lock, or the lock
    ///   file that cannot be opened.
    static func acquire(options: WardenDaemonOptions) throws(WardenDaemonError) -> InstanceLock {
        let files = [
            (
                path: options.lockDirectory + "/cgroup-\(options.cgroupRoot).lock",
                what: "cgroup root \"\(options.cgroupRoot)\"", parents: false
            ),
            (
                path: options.stateDirectory + "/appwarden.lock",
                what: "state directory \"\(options.stateDirectory)\"", parents: true
            ),
        ]
        var taken: [(path: String, descriptor: Int32)] = []
        var made: [String] = []
        for file in files {
            do {
                let descriptor = try lock(path: file.path, what: file.what, parents: file.parents, made: &made)
                taken.append((file.path, descriptor))
            } catch {
                InstanceLock(held: taken, made: made).release()
                throw error
            }
        }
        return InstanceLock(held: taken, made: made)
    }

    /// Opens `path` (creating its directory, and with `parents` the directories above it), locks
    /// it and writes this process's pid into it. A file removed by the daemon that held it while
    /// this one waited to lock it is opened again, so that two daemons never hold locks on two
    /// files of the same name.
    private static func lock(
        path: String, what: String, parents: Bool, made: inout [String]
    ) throws(WardenDaemonError) -> Int32 {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        try makeDirectory(directory, parents: parents, made: &made)
        while true {
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
            guard let opened = FileIdentity.of(descriptor: descriptor), opened == FileIdentity.of(path: path) else {
                // The daemon that held it removed the file as it stopped: lock the new one.
                close(descriptor)
                continue
            }
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            return descriptor
        }
    }

    /// Creates `directory` (mode 0755) if it is missing, and with `parents` the missing ones
    /// above it too; appends each one it made to `made`.
    private static func makeDirectory(
        _ directory: String, parents: Bool, made: inout [String]
    ) throws(WardenDaemonError) {
        guard !directory.isEmpty, access(directory, F_OK) != 0 else { return }
        if parents, let slash = directory.lastIndex(of: "/"), slash > directory.startIndex {
            try makeDirectory(String(directory[..<slash]), parents: true, made: &made)
        }
        if mkdir(directory, 0o755) == 0 {
            made.append(directory)
        } else if errno != EEXIST {
            throw WardenDaemonError(
                "The directory \"\(directory)\" cannot be created: \(String(cString: strerror(errno))).")
        }
    }

    /// The pid written in a lock file, if it holds one.
    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Int32(String(text.prefix { $0.isNumber }))
    }

    /// Removes the lock files and lets go of the locks (the next daemon may start); the
    /// directories the locks made go too when nothing else was put in them (a refused start).
    /// Only the first call does anything: a later one (the `deinit` of a daemon that stopped long
    /// ago) must not remove a directory that the next daemon has just made again.
    func release() {
        let taken = held.withLock { held in
            defer { held.removeAll() }
            return held
        }
        for lock in taken {
            unlink(lock.path)
            close(lock.descriptor)
        }
        let directories = made.withLock { made in
            defer { made.removeAll() }
            return made
        }
        for directory in directories.reversed() { rmdir(directory) }
    }

    deinit {
        release()
    }
}
