import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A process started by `ProcessSpawner`: its pid and a pidfd that names it without races.
///
/// The owner waits for it, reaps it once and then calls `close()` to release the pidfd.
public struct SpawnedProcess: Sendable, Hashable {
    /// How a process ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal with this number ended it.
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): return "exited with status \(status)"
            case .signaled(let signal): return "ended by signal \(signal)"
            }
        }
    }

    /// How the child was created.
    public enum CreationMethod: Sendable, Hashable {
        /// `clone3(CLONE_INTO_CGROUP | CLONE_PIDFD)`: born inside the cgroup2 leaf.
        case clone3IntoCgroup
        /// `clone3(CLONE_PIDFD)`, every group joined by the child before `execve`.
        case clone3
        /// `fork`, every group joined by the child before `execve`.
        case fork
    }

    /// The process id.
    public let pid: Int32
    /// A pidfd for the process, or -1 on kernels without pidfds.
    public let pidfd: Int32
    /// How the child was created.
    public let method: CreationMethod

    /// Wraps an existing pid and pidfd.
    public init(pid: Int32, pidfd: Int32, method: CreationMethod) {
        self.pid = pid
        self.pidfd = pidfd
        self.method = method
    }

    /// Waits until the process has ended or `timeout` has passed, by polling the pidfd.
    ///
    /// Returns true when it has ended; the process stays reapable. Without a pidfd (kernels
    /// before 5.3) it checks `waitid(WNOHANG | WNOWAIT)` every 10 ms instead.
    public func waitForExit(timeout: Duration?) throws(CgroupError) -> Bool {
        let milliseconds: Int32
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let total = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            milliseconds = Int32(clamping: total)
        } else {
            milliseconds = -1
        }
        guard pidfd >= 0 else {
            var waited: Int32 = 0
            while true {
                switch Syscalls.reap(pid: pid, pidfd: -1, noHang: true, peek: true) {
                case .success(.some): return true
                case .success(nil): break
                case .failure(let error): throw CgroupError.from(error, "wait for the end of process", path: "\(pid)")
                }
                if milliseconds >= 0 && waited >= milliseconds { return false }
                usleep(10_000)
                waited += 10
            }
        }
        var fds = [pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)]
        switch Syscalls.poll(&fds, timeoutMilliseconds: milliseconds) {
        case .success(let ready): return ready > 0
        case .failure(let error): throw CgroupError.from(error, "wait for the end of process", path: "\(pid)")
        }
    }

    /// Reaps the process with `waitid` if it has ended; nil while it is still running.
    public func reapIfExited() throws(CgroupError) -> Termination? {
        try reap(noHang: true)
    }

    /// Waits for the process to end and reaps it with `waitid`.
    public func waitAndReap() throws(CgroupError) -> Termination {
        guard let termination = try reap(noHang: false) else {
            throw CgroupError(
                code: .io,
                message: "Waiting for process \(pid) returned before it ended.",
                cause: "waitid reported no child"
            )
        }
        return termination
    }

    /// Sends `signal` through the pidfd (`pidfd_send_signal`), so it cannot reach a recycled pid.
    ///
    /// A process that has already ended is not an error.
    public func send(signal: Int32) throws(CgroupError) {
        switch Syscalls.sendSignal(signal, pid: pid, pidfd: pidfd) {
        case .success: return
        case .failure(let error) where error.meansVanished: return
        case .failure(let error): throw CgroupError.from(error, "send signal \(signal) to process", path: "\(pid)")
        }
    }

    /// Opens a pidfd for `pid`, which need not be a child (`pidfd_open`): its end can then be
    /// noticed by polling the pidfd, though its exit status cannot be read.
    ///
    /// Returns nil on kernels without pidfds; throws `notFound` when the process is gone.
    public static func pidfd(of pid: Int32) throws(CgroupError) -> Int32? {
        switch Syscalls.openPidFD(pid) {
        case .success(let fd): return fd
        case .failure(let error) where error.rawValue == ENOSYS: return nil
        case .failure(let error): throw CgroupError.from(error, "open a pidfd for process", path: "\(pid)")
        }
    }

    /// Closes the pidfd. Call once, after reaping.
    public func close() {
        if pidfd >= 0 { Syscalls.close(pidfd) }
    }

    private func reap(noHang: Bool) throws(CgroupError) -> Termination? {
        switch Syscalls.reap(pid: pid, pidfd: pidfd, noHang: noHang) {
        case .success(nil):
            return nil
        case .success(let info?):
            return info.exited != 0 ? .exited(info.code) : .signaled(info.code)
        case .failure(let error):
            throw CgroupError(
                code: error.meansVanished || error.rawValue == ECHILD ? .notFound : .io,
                message: "Could not reap process \(pid); it is not a child of appwarden or was reaped already.",
                cause: error.description
            )
        }
    }
}
