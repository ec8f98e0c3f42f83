import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of a file: the device it lives on and its inode number.
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var deviceMajor: UInt32
    var deviceMinor: UInt32
    var isDirectory: Bool
}

extension Syscalls {
    /// Opens the directory `path` with `open(2)` and `O_DIRECTORY | O_RDONLY | O_CLOEXEC`.
    static func openDirectory(_ path: String) -> Result<Int32, Errno> {
        open(path, O_RDONLY | O_DIRECTORY)
    }

    /// Opens `path` for writing and appending, creating it with `mode` if it does not exist.
    static func openForAppending(_ path: String, mode: mode_t = 0o640) -> Result<Int32, Errno> {
        open(path, O_WRONLY | O_CREAT | O_APPEND, mode: mode)
    }

    /// Reads the target of the symbolic link `path` with `readlink(2)`.
    static func readLink(_ path: String) -> Result<String, Errno> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            Glibc.readlink(path, pointer.baseAddress!, pointer.count - 1)
        }
        guard count >= 0 else { return .failure(.current) }
        return .success(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// The device and inode of `path`, following symbolic links, with `stat(2)`.
    static func identity(_ path: String) -> Result<FileIdentity, Errno> {
        var info = Glibc.stat()
        guard stat(path, &info) == 0 else { return .failure(.current) }
        return .success(
            FileIdentity(
                device: UInt64(info.st_dev),
                inode: UInt64(info.st_ino),
                deviceMajor: UInt32(warden_dev_major(info.st_dev)),
                deviceMinor: UInt32(warden_dev_minor(info.st_dev)),
                isDirectory: (info.st_mode & S_IFMT) == S_IFDIR
            )
        )
    }

    /// Whether `path` is a regular file the caller may execute, with `stat(2)` and `access(2)`.
    static func isExecutableFile(_ path: String) -> Bool {
        var info = Glibc.stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return Glibc.access(path, X_OK) == 0
    }

    /// Creates a non-blocking, close-on-exec eventfd with `eventfd(2)`.
    static func eventFD() -> Result<Int32, Errno> {
        let fd = warden_eventfd()
        return fd >= 0 ? .success(fd) : .failure(.current)
    }

    /// Creates a close-on-exec epoll instance with `epoll_create1(2)`.
    static func epollCreate() -> Result<Int32, Errno> {
        retryingInterrupts { warden_epoll_create() }
    }

    /// Adds `fd` to the epoll instance `epfd` with `epoll_ctl(2)`, waiting for `events` (the
    /// poll bits, which epoll shares); `key` comes back with each of its readiness events.
    static func epollAdd(_ epfd: Int32, fd: Int32, events: Int16, key: UInt64) -> Result<Void, Errno> {
        retryingInterrupts { warden_epoll_add(epfd, fd, UInt32(UInt16(bitPattern: events)), key) }.map { _ in () }
    }

    /// Removes `fd` from the epoll instance `epfd` with `epoll_ctl(2)`.
    static func epollRemove(_ epfd: Int32, fd: Int32) {
        _ = retryingInterrupts { warden_epoll_remove(epfd, fd) }
    }

    /// Waits at most `timeoutMilliseconds` (-1: no timeout) for readiness on `epfd` with
    /// `epoll_wait(2)`, repeating on `EINTR`; returns each ready descriptor's key and events (as
    /// poll bits), none on timeout.
    static func epollWait(
        _ epfd: Int32, timeoutMilliseconds: Int32
    ) -> Result<[(key: UInt64, events: Int16)], Errno> {
        var keys = [UInt64](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        return retryingInterrupts { warden_epoll_wait(epfd, &keys, &events, 64, timeoutMilliseconds) }.map { count in
            (0..<Int(count)).map { (keys[$0], Int16(truncatingIfNeeded: events[$0])) }
        }
    }

    /// Adds one to the counter of the eventfd `fd`, waking whoever polls it.
    static func signalEventFD(_ fd: Int32) -> Result<Void, Errno> {
        var one: UInt64 = 1
        return withUnsafeBytes(of: &one) { write(fd, $0) }.map { _ in () }
    }

    /// Reads and resets the counter of the eventfd `fd`; zero when it was not signalled.
    static func drainEventFD(_ fd: Int32) -> Result<UInt64, Errno> {
        var value: UInt64 = 0
        let result = withUnsafeMutableBytes(of: &value) { read(fd, into: $0) }
        switch result {
        case .success: return .success(value)
        case .failure(let error) where error.rawValue == EAGAIN: return .success(0)
        case .failure(let error): return .failure(error)
        }
    }

    /// Reaps the child `pid` with `waitid(2)` (`P_PIDFD` when `pidfd` is not negative).
    ///
    /// Returns nil when `noHang` is set and the child is still running. With `peek` the child is
    /// left reapable (`WNOWAIT`).
    static func reap(pid: pid_t, pidfd: Int32, noHang: Bool, peek: Bool = false) -> Result<warden_exit?, Errno> {
        var info = warden_exit()
        while true {
            let result = warden_reap(pid, pidfd, noHang ? 1 : 0, peek ? 1 : 0, &info)
            if result == 1 { return .success(info) }
            if result == 0 { return .success(nil) }
            let error = Errno.current
            if error != .interrupted { return .failure(error) }
        }
    }

    /// Sends `signal` with `pidfd_send_signal(2)`, or `kill(2)` when there is no pidfd.
    static func sendSignal(_ signal: Int32, pid: pid_t, pidfd: Int32) -> Result<Void, Errno> {
        warden_send_signal(pid, pidfd, signal) == 0 ? .success(()) : .failure(.current)
    }

    /// Opens a close-on-exec pidfd for any process, child or not, with `pidfd_open(2)`.
    static func openPidFD(_ pid: pid_t) -> Result<Int32, Errno> {
        retryingInterrupts { warden_pidfd_open(pid) }
    }

    /// Sets the nice value of the thread `tid` with `setpriority(2)` (`PRIO_PROCESS`, which on
    /// Linux names one thread). Lowering it below the current value needs `CAP_SYS_NICE`.
    static func setNice(thread tid: pid_t, to value: Int32) -> Result<Void, Errno> {
        #if canImport(Glibc)
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
        #else
            let which = PRIO_PROCESS
        #endif
        return retryingInterrupts { setpriority(which, id_t(tid), value) }.map { _ in () }
    }

    /// Reaps the address space of the dying process `pidfd` refers to with `process_mrelease(2)`.
    ///
    /// Fails with `ENOSYS` before Linux 5.15, `ESRCH` once the process is reaped, and `EINVAL`
    /// while the process has no pending SIGKILL.
    static func releaseMemory(pidfd: Int32) -> Result<Void, Errno> {
        retryingInterrupts { warden_process_mrelease(pidfd) }.map { _ in () }
    }

    /// The current working directory, with `getcwd(3)`.
    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Looks up a user by id with `getpwuid_r(3)`, then as `lookUpUser(_:)` by its name.
    ///
    /// Returns nil when there is no such user.
    static func lookUpUser(id: uid_t) -> Result<(uid: uid_t, gid: gid_t, groups: [gid_t])?, Errno> {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwuid_r(id, &entry, &buffer, buffer.count, &found)
        guard status == 0 else { return .failure(Errno(rawValue: status)) }
        guard found != nil, let name = entry.pw_name else { return .success(nil) }
        return lookUpUser(String(cString: name))
    }

    /// Looks up a user by name with `getpwnam_r(3)` and its groups with `getgrouplist(3)`.
    ///
    /// Returns nil when there is no such user.
    static func lookUpUser(_ name: String) -> Result<(uid: uid_t, gid: gid_t, groups: [gid_t])?, Errno> {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwnam_r(name, &entry, &buffer, buffer.count, &found)
        guard status == 0 else { return .failure(Errno(rawValue: status)) }
        guard found != nil else { return .success(nil) }
        let uid = entry.pw_uid
        let gid = entry.pw_gid
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        while getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count) + 16)
            count = Int32(groups.count)
        }
        return .success((uid, gid, Array(groups.prefix(Int(count)))))
    }
}
