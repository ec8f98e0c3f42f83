import Foundation
import Synchronization
public import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Notices the end of processes at once: one thread polls every pidfd (and a pipe that wakes it
/// when the set changes), reaps a spawned process as soon as its pidfd becomes readable and
/// reports the end to the handler it was made with, from its own thread. Processes that are not appwarden's children (re-adopted after a
/// restart) are watched through a pidfd too (`pidfd_open`); their end is reported without a
/// status, since only a parent can read it.
public final class ProcessWatcher: Sendable {
    /// A process that ended.
    public struct Exit: Sendable, Equatable {
        public var app: String
        public var launch: Int
        public var pid: Int32
        /// How it ended; nil when it could not be reaped (it was not appwarden's child).
        public var termination: SpawnedProcess.Termination?
    }

    private struct Watched {
        var pid: Int32
        /// The pidfd polled for the end, or -1 on kernels without pidfds.
        var pidfd: Int32
        /// The spawned child, reaped at its end; nil for a process that is not a child.
        var process: SpawnedProcess?
        var app: String
        var launch: Int

        /// Whether the process has ended, for one without a pidfd: reaped if a child, gone if not.
        func endedWithoutPidfd() -> (ended: Bool, termination: SpawnedProcess.Termination?) {
            if let process {
                guard let ended = try? process.reapIfExited() else { return (false, nil) }
                return (true, ended)
            }
            return (Glibc.kill(pid, 0) != 0 && errno == ESRCH, nil)
        }

        func close() {
            if let process {
                process.close()
            } else if pidfd >= 0 {
                Glibc.close(pidfd)
            }
        }
    }

    private struct State {
        var watched: [Watched] = []
        var stopped = false
    }

    /// Called with each end, in the order noticed, on the watcher's thread.
    private let ended: @Sendable (Exit) -> Void
    private let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts the polling thread, which calls `ended` with each end.
    public init(ended: @escaping @Sendable (Exit) -> Void) {
        self.ended = ended
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let thread = Thread { [self] in self.run() }
        thread.name = "appwarden-process-watcher"
        thread.start()
    }

    /// Watches `process`, launch `launch` of `app`, until it ends.
    public func watch(_ process: SpawnedProcess, app: String, launch: Int) {
        state.withLock {
            $0.watched.append(
                Watched(pid: process.pid, pidfd: process.pidfd, process: process, app: app, launch: launch))
        }
        wake()
    }

    /// Watches `pid`, a process that is not appwarden's child (one re-adopted after a restart),
    /// launch `launch` of `app`, until it ends; its end is reported without a status. A process
    /// already gone is reported at once.
    public func watch(pid: Int32, app: String, launch: Int) {
        let pidfd: Int32
        do {
            pidfd = try SpawnedProcess.pidfd(of: pid) ?? -1
        } catch {
            ended(Exit(app: app, launch: launch, pid: pid, termination: nil))
            return
        }
        state.withLock {
            $0.watched.append(Watched(pid: pid, pidfd: pidfd, process: nil, app: app, launch: launch))
        }
        wake()
    }

    /// How many processes are being watched.
    public var count: Int { state.withLock { $0.watched.count } }

    /// Stops watching: the thread closes the pidfds it holds (the processes keep running) and
    /// reports nothing more.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        while true {
            let (watched, stopped) = state.withLock { ($0.watched, $0.stopped) }
            if stopped { break }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var withoutPidfd = false
            for entry in watched {
                fds.append(pollfd(fd: entry.pidfd, events: Int16(POLLIN), revents: 0))
                if entry.pidfd < 0 { withoutPidfd = true }
            }
            let timeout: Int32 = withoutPidfd || wakeRead < 0 ? 50 : -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            if fds[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            for (offset, entry) in watched.enumerated() {
                let readable = fds[offset + 1].revents != 0
                guard readable || entry.pidfd < 0 else { continue }
                var termination: SpawnedProcess.Termination?
                if readable {
                    termination = try? entry.process?.reapIfExited()
                } else {
                    let (ended, status) = entry.endedWithoutPidfd()
                    guard ended else { continue }
                    termination = status
                }
                state.withLock { state in
                    state.watched.removeAll { $0.pid == entry.pid }
                }
                entry.close()
                if !state.withLock({ $0.stopped }) {
                    ended(Exit(app: entry.app, launch: entry.launch, pid: entry.pid, termination: termination))
                }
            }
        }
        for entry in state.withLock({ $0.watched }) { entry.close() }
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }
}
