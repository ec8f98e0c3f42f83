import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension PressureMonitor {
    /// The dedicated thread that polls every armed source and yields events.
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
            var entries = initial.map(Entry.init)

            running: while true {
                var fds = entries.map { pollfd(fd: $0.watch.fd, events: $0.watch.pollEvents, revents: 0) }
                fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
                // No timeout: the thread wakes only when the kernel signals or it is asked something.
                switch Syscalls.poll(&fds, timeoutMilliseconds: -1) {
                case .failure: break running
                case .success: break
                }
                let time = clock.now
                for index in entries.indices where fds[index].revents != 0 {
                    let revents = fds[index].revents
                    let watch = entries[index].watch
                    switch watch.kind {
                    case .psi:
                        if revents & Int16(POLLERR | POLLNVAL) != 0 {
                            entries[index].watch.fd = -1  // The group was removed.
                            Syscalls.close(watch.fd)
                        } else if revents & Int16(POLLPRI) != 0 {
                            emit(watch, at: time, last: &entries[index].lastEmitted)
                        }
                    case .eventFD(let controlFile):
                        _ = Syscalls.drainEventFD(watch.fd)
                        if !Syscalls.exists(controlFile) {
                            entries[index].watch.fd = -1  // Removing a v1 group signals its eventfds one last time.
                            Syscalls.close(watch.fd)
                        } else {
                            emit(watch, at: time, last: &entries[index].lastEmitted)
                        }
                    case .memoryEvents(let path, _):
                        guard let current = try? PressureMonitor.readOOMKills(fd: watch.fd, path: path) else {
                            entries[index].watch.fd = -1
                            Syscalls.close(watch.fd)
                            continue
                        }
                        if current > entries[index].kills {
                            let event = PressureEvent(
                                source: watch.source, level: .critical, time: time,
                                oomKills: current - entries[index].kills)
                            continuation.yield(event)
                        }
                        entries[index].kills = current
                    }
                }
                entries.removeAll { $0.watch.fd < 0 }
                guard fds[fds.count - 1].revents != 0 else { continue }
                _ = Syscalls.drainEventFD(wakeFD)
                let asked = control.withLock { control in
                    defer {
                        control.added.removeAll()
                        control.removed.removeAll()
                    }
                    return (control.stopRequested, control.added, control.removed)
                }
                if asked.0 {
                    for watch in asked.1 { watch.close() }
                    break running
                }
                for source in asked.2 {
                    for entry in entries where entry.watch.requestedSource == source { entry.watch.close() }
                    entries.removeAll { $0.watch.requestedSource == source }
                }
                entries += asked.1.map(Entry.init)
            }

            control.withLock { control in
                control.closed = true
                for watch in control.added { watch.close() }
                control.added.removeAll()
                Syscalls.close(wakeFD)
            }
            for entry in entries { entry.watch.close() }
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
