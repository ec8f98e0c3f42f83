import FoundationEssentials
import Synchronization
public import WardenCgroup
import WardenPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Notices the end of processes at once: one thread waits on every pidfd with epoll, reaps a
/// spawned process as soon as its pidfd becomes readable and reports the end to the handler it
/// was made with, from its own thread. A wake-up costs the processes that ended, not every process
/// watched. Processes that are not appwarden's children (re-adopted after a restart) are watched
/// through a pidfd too (`pidfd_open`); their end is reported without a status, since only a parent
/// can read it. On a kernel without pidfds (before 5.3) the thread looks at such processes every
/// 50 ms instead.
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
        /// The pidfd waited on for the end, or -1 on kernels without pidfds.
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
        /// The processes watched, by the key their pidfd is registered with.
        var watched: [UInt64: Watched] = [:]
        /// The keys of processes without a pidfd, looked at on a timer.
        var withoutPidfd: Set<UInt64> = []
        var nextKey: UInt64 = 1
        var stopped = false
    }

    /// Called with each end, in the order noticed, on the watcher's thread.
    private let ended: @Sendable (Exit) -> Void
    private let state = Mutex(State())
    /// The epoll instance the thread waits on; nil where it could not be made, and then every
    /// process is looked at on the timer.
    private let poll: EventPoll?

    /// Starts the watching thread, which calls `ended` with each end.
    public init(ended: @escaping @Sendable (Exit) -> Void) {
        self.ended = ended
        poll = try? EventPoll()
        do {
            try DetachedThread.start(name: "appwarden-process-watcher") { [self] in self.run() }
        } catch {
            fatalError("The process watcher's thread: \(error)")
        }
    }

    /// Watches `process`, launch `launch` of `app`, until it ends.
    public func watch(_ process: SpawnedProcess, app: String, launch: Int) {
        add(Watched(pid: process.pid, pidfd: process.pidfd, process: process, app: app, launch: launch))
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
        add(Watched(pid: pid, pidfd: pidfd, process: nil, app: app, launch: launch))
    }

    /// Registers `entry` under a new key: its pidfd with epoll (an end already past is reported
    /// by the next wait), or, without one, on the timer.
    private func add(_ entry: Watched) {
        let key = state.withLock { state in
            let key = state.nextKey
            state.nextKey += 1
            state.watched[key] = entry
            return key
        }
        var registered = false
        if let poll, entry.pidfd >= 0 {
            registered = (try? poll.add(entry.pidfd, events: Int16(POLLIN), key: key)) != nil
        }
        if !registered {
            state.withLock { _ = $0.withoutPidfd.insert(key) }
            poll?.wake()
        }
    }

    /// How many processes are being watched.
    public var count: Int { state.withLock { $0.watched.count } }

    /// Stops watching: the thread closes the pidfds it holds (the processes keep running) and
    /// reports nothing more.
    public func stop() {
        state.withLock { $0.stopped = true }
        poll?.wake()
    }

    private func run() {
        while true {
            let timed = state.withLock { $0.withoutPidfd.isEmpty == false } || poll == nil
            var ready: [UInt64] = []
            if let poll {
                do {
                    ready = try poll.wait(timeoutMilliseconds: timed ? 50 : -1).map(\.key)
                } catch {
                    usleep(10_000)
                }
            } else {
                usleep(50_000)
            }
            if state.withLock({ $0.stopped }) { break }
            for key in ready where key != EventPoll.wakeKey {
                guard let entry = state.withLock({ $0.watched[key] }) else { continue }
                finish(key, entry, termination: try? entry.process?.reapIfExited())
            }
            guard timed else { continue }
            let unwatched = state.withLock { state in
                poll == nil ? Array(state.watched.keys) : Array(state.withoutPidfd)
            }
            for key in unwatched {
                guard let entry = state.withLock({ $0.watched[key] }) else { continue }
                let (ended, termination) = entry.endedWithoutPidfd()
                if ended { finish(key, entry, termination: termination) }
            }
        }
        let remaining = state.withLock { state in
            defer {
                state.watched.removeAll()
                state.withoutPidfd.removeAll()
            }
            return Array(state.watched.values)
        }
        for entry in remaining {
            if entry.pidfd >= 0 { poll?.remove(entry.pidfd) }
            entry.close()
        }
    }

    /// Forgets the ended process `entry`, closes its pidfd and reports its end.
    private func finish(_ key: UInt64, _ entry: Watched, termination: SpawnedProcess.Termination?) {
        state.withLock { state in
            state.watched[key] = nil
            state.withoutPidfd.remove(key)
        }
        if entry.pidfd >= 0 { poll?.remove(entry.pidfd) }
        entry.close()
        if !state.withLock({ $0.stopped }) {
            ended(Exit(app: entry.app, launch: entry.launch, pid: entry.pid, termination: termination))
        }
    }
}
