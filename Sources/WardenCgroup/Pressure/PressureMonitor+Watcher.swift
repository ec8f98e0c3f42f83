import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension PressureMonitor {
    /// The dedicated thread that waits on every armed source (`epoll`) and yields events.
    ///
    /// The watches and their descriptors belong to the thread once it runs; `add`, `remove` and
    /// `stop` leave their request under a lock and wake the thread's wait.
    final class Watcher: Sendable {
        /// What `add`, `remove` and `stop` ask of the thread, taken when it wakes.
        private struct Control {
            /// Whether the thread has ended (then a watch handed over is closed at once).
            var closed = false
            var stopRequested = false
            var added: [PressureWatch] = []
            var removed: [Source] = []
        }

        private let initial: [PressureWatch]
        private let debounce: Duration
        private let continuation: AsyncStream<PressureEvent>.Continuation
        private let poll: EventPoll
        private let control = Mutex(Control())

        private init(
            watches: [PressureWatch], debounce: Duration, continuation: AsyncStream<PressureEvent>.Continuation,
            poll: EventPoll
        ) {
            self.initial = watches
            self.debounce = debounce
            self.continuation = continuation
            self.poll = poll
        }

        /// Creates the epoll instance and starts the thread.
        static func start(
            _ watches: [PressureWatch], debounce: Duration, continuation: AsyncStream<PressureEvent>.Continuation
        ) throws(CgroupError) -> Watcher {
            let watcher = Watcher(
                watches: watches, debounce: debounce, continuation: continuation, poll: try EventPoll())
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
                poll.wake()
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
                poll.wake()
            }
        }

        /// Asks the thread to close every descriptor and end the sequence.
        func stop() {
            control.withLock { control in
                guard !control.closed else { return }
                control.stopRequested = true
                poll.wake()
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
            var entries: [UInt64: Entry] = [:]
            // The keys of each requested source, so that forgetting an app's source costs one lookup.
            var keysOfSource: [Source: [UInt64]] = [:]
            var nextKey: UInt64 = 1
            func register(_ watch: PressureWatch) {
                let key = nextKey
                nextKey += 1
                do {
                    try poll.add(watch.fd, events: watch.pollEvents, key: key)
                } catch {
                    watch.close()
                    return
                }
                entries[key] = Entry(watch)
                keysOfSource[watch.requestedSource, default: []].append(key)
            }
            func forget(_ key: UInt64) {
                guard let entry = entries.removeValue(forKey: key) else { return }
                let source = entry.watch.requestedSource
                keysOfSource[source]?.removeAll { $0 == key }
                if keysOfSource[source]?.isEmpty == true { keysOfSource[source] = nil }
                poll.remove(entry.watch.fd)
                entry.watch.close()
            }
            for watch in initial { register(watch) }

            running: while true {
                // No timeout: the thread wakes only when the kernel signals or it is asked something.
                let ready: [EventPoll.Readiness]
                do {
                    ready = try poll.wait()
                } catch {
                    break running
                }
                let time = clock.now
                var asked = false
                for readiness in ready {
                    let key = readiness.key
                    let revents = readiness.events
                    if key == EventPoll.wakeKey {
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
                    for key in keysOfSource[source] ?? [] { forget(key) }
                }
                for watch in requests.1 { register(watch) }
            }

            control.withLock { control in
                control.closed = true
                for watch in control.added { watch.close() }
                control.added.removeAll()
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
