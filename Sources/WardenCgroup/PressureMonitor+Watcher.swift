import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension PressureMonitor {
    /// The dedicated thread that waits on every armed source (`epoll`) and yields events.
    ///
    /// The watches and their descriptors belong to the thread once it runs; `stop()` only
    /// signals the wake eventfd, under a lock that the thread also takes before closing it.
    final class Watcher: Sendable {
        /// What `add`, `remove` and `stop` ask of the thread, taken when it wakes.
        private struct Control {
            /// Whether the thread has closed the wake eventfd (then nothing may signal it).
            var closed = false
            var stopRequested = false
            var added: [PressureWatch] = []
            var removed: [Source] = []
        }

        private let initial: [PressureWatch]
        private let debounce: Duration
        private let continuation: AsyncStream<PressureEvent>.Continuation
        private let wakeFD: Int32
        private let control = Mutex(Control())

        private init(
            watches: [PressureWatch], debounce: Duration, continuation: AsyncStream<PressureEvent>.Continuation,
            wakeFD: Int32
        ) {
            self.initial = watches
            self.debounce = debounce
            self.continuation = continuation
            self.wakeFD = wakeFD
        }

        /// Creates the wake eventfd and starts the thread.
        static func start(
            _ watches: [PressureWatch], debounce: Duration, continuation: AsyncStream<PressureEvent>.Continuation
        ) throws(CgroupError) -> Watcher {
            let wakeFD: Int32
            switch Syscalls.eventFD() {
            case .success(let fd): wakeFD = fd
            case .failure(let error):
                throw CgroupError(
                    code: .io, message: "Could not create the eventfd that stops the pressure monitor.",
                    cause: error.description)
            }
            let watcher = Watcher(watches: watches, debounce: debounce, continuation: continuation, wakeFD: wakeFD)
            let context = Unmanaged.passRetained(watcher).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(
                &thread, nil,
                { context in
                    let watcher = Unmanaged<Watcher>.fromOpaque(context!).takeRetainedValue()
                    watcher.run()
                    return nil
                }, context)
            guard status == 0 else {
                Unmanaged<Watcher>.fromOpaque(context).release()
                Syscalls.close(wakeFD)
                throw CgroupError(
                    code: .io, message: "Could not start the pressure monitor's thread.",
                    cause: Errno(rawValue: status).description)
            }
            pthread_detach(thread)
            return watcher
        }

        /// Hands an armed watch to the thread; false (and the watch closed) once it has stopped.
        func add(_ watch: PressureWatch) -> Bool {
            let taken = control.withLock { control in
                guard !control.closed, !control.stopRequested else { return false }
                control.added.append(watch)
                _ = Syscalls.signalEventFD(wakeFD)
                return true
            }
            if !taken { watch.close() }
            return taken
        }

        /// Asks the thread to stop watching `source` and close its descriptor.
        func remove(_ source: Source) {
            control.withLock { control in
                guard !control.closed, !control.stopRequested else { return }
                control.removed.append(source)
                _ = Syscalls.signalEventFD(wakeFD)
            }
        }

        /// Asks the thread to close every descriptor and end the sequence.
        func stop() {
            control.withLock { control in
                guard !control.closed else { return }
                control.stopRequested = true
                _ = Syscalls.signalEventFD(wakeFD)
            }
        }

        /// One armed watch as the thread keeps it.
        private struct Entry {
            var watch: PressureWatch
            var lastEmitted: ContinuousClock.Instant?
            var kills: UInt64

            init(_ watch: PressureWatch) {
                self.watch = watch
                if case .memoryEvents(_, let initialKills) = watch.kind { kills = initialKills } else { kills = 0 }
            }
        }

        private func run() {
            let clock = ContinuousClock()
            // One epoll instance: each descriptor is registered once, and a wake-up costs what is
            // ready, not every armed source (an OOM source per app, a thousand apps or more).
            guard case .success(let epfd) = Syscalls.epollCreate() else {
                control.withLock { control in
                    control.closed = true
                    for watch in control.added { watch.close() }
                    control.added.removeAll()
                    Syscalls.close(wakeFD)
                }
                for watch in initial { watch.close() }
                continuation.finish()
                return
            }
            defer { Syscalls.close(epfd) }
            var entries: [UInt64: Entry] = [:]
            var nextKey: UInt64 = 1
            func register(_ watch: PressureWatch) {
                let key = nextKey
                nextKey += 1
                guard case .success = Syscalls.epollAdd(epfd, fd: watch.fd, events: watch.pollEvents, key: key) else {
                    watch.close()
                    return
                }
                entries[key] = Entry(watch)
            }
            func forget(_ key: UInt64) {
                guard let entry = entries.removeValue(forKey: key) else { return }
                Syscalls.epollRemove(epfd, fd: entry.watch.fd)
                entry.watch.close()
            }
            let wakeKey: UInt64 = 0
            _ = Syscalls.epollAdd(epfd, fd: wakeFD, events: Int16(POLLIN), key: wakeKey)
            for watch in initial { register(watch) }

            running: while true {
                // No timeout: the thread wakes only when the kernel signals or it is asked something.
                let ready: [(key: UInt64, events: Int16)]
                switch Syscalls.epollWait(epfd) {
                case .failure: break running
                case .success(let events): ready = events
                }
                let time = clock.now
                var asked = false
                for (key, revents) in ready {
                    if key == wakeKey {
                        asked = true
                        continue
                    }
                    guard let watch = entries[key]?.watch else { continue }
                    switch watch.kind {
                    case .psi:
                        if revents & Int16(POLLERR) != 0 {
                            forget(key)  // The group was removed.
                        } else if revents & Int16(POLLPRI) != 0 {
                            emit(watch, at: time, last: &entries[key]!.lastEmitted)
                        }
                    case .eventFD(let controlFile):
                        _ = Syscalls.drainEventFD(watch.fd)
                        if !Syscalls.exists(controlFile) {
                            forget(key)  // Removing a v1 group signals its eventfds one last time.
                        } else {
                            emit(watch, at: time, last: &entries[key]!.lastEmitted)
                        }
                    case .memoryEvents(let path, _):
                        guard let current = try? PressureMonitor.readOOMKills(fd: watch.fd, path: path) else {
                            forget(key)
                            continue
                        }
                        if let previous = entries[key]?.kills, current > previous {
                            let event = PressureEvent(
                                source: watch.source, level: .critical, time: time, oomKills: current - previous)
                            continuation.yield(event)
                        }
                        entries[key]?.kills = current
                    }
                }
                guard asked else { continue }
                _ = Syscalls.drainEventFD(wakeFD)
                let requests = control.withLock { control in
                    defer {
                        control.added.removeAll()
                        control.removed.removeAll()
                    }
                    return (control.stopRequested, control.added, control.removed)
                }
                if requests.0 {
                    for watch in requests.1 { watch.close() }
                    break running
                }
                for source in requests.2 {
                    for (key, entry) in entries where entry.watch.requestedSource == source { forget(key) }
                }
                for watch in requests.1 { register(watch) }
            }

            control.withLock { control in
                control.closed = true
                for watch in control.added { watch.close() }
                control.added.removeAll()
                Syscalls.close(wakeFD)
            }
            for entry in entries.values { entry.watch.close() }
            continuation.finish()
        }

        private func emit(
            _ watch: PressureWatch, at time: ContinuousClock.Instant, last: inout ContinuousClock.Instant?
        ) {
            let debounced: Bool
            if case .usageThreshold = watch.source { debounced = false } else { debounced = true }
            if debounced, let last, time - last < debounce { return }
            last = time
            continuation.yield(PressureEvent(source: watch.source, level: watch.level, time: time))
        }
    }
}
