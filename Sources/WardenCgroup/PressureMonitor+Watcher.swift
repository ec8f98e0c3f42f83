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
        private let watches: [PressureWatch]
        private let debounce: Duration
        private let continuation: AsyncStream<PressureEvent>.Continuation
        private let wakeFD: Int32
        /// Whether the thread has closed the wake eventfd (then `stop()` must not touch it).
        private let closed = Mutex(false)

        private init(
            watches: [PressureWatch], debounce: Duration, continuation: AsyncStream<PressureEvent>.Continuation,
            wakeFD: Int32
        ) {
            self.watches = watches
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

        /// Asks the thread to close every descriptor and end the sequence.
        func stop() {
            closed.withLock { closed in
                if !closed { _ = Syscalls.signalEventFD(wakeFD) }
            }
        }

        private func run() {
            let clock = ContinuousClock()
            var fds = watches.map { pollfd(fd: $0.fd, events: $0.pollEvents, revents: 0) }
            fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
            var lastEmitted: [ContinuousClock.Instant?] = Array(repeating: nil, count: watches.count)
            var kills: [UInt64] = watches.map {
                if case .memoryEvents(_, let initialKills) = $0.kind { return initialKills } else { return 0 }
            }

            running: while true {
                // No timeout: the thread wakes only when the kernel signals or `stop()` is called.
                switch Syscalls.poll(&fds, timeoutMilliseconds: -1) {
                case .failure: break running
                case .success: break
                }
                if fds[watches.count].revents != 0 { break running }
                let time = clock.now
                for index in watches.indices where fds[index].revents != 0 {
                    let revents = fds[index].revents
                    fds[index].revents = 0
                    let watch = watches[index]
                    switch watch.kind {
                    case .psi:
                        if revents & Int16(POLLERR | POLLNVAL) != 0 {
                            fds[index].fd = -1  // The group was removed.
                        } else if revents & Int16(POLLPRI) != 0 {
                            emit(watch, at: time, last: &lastEmitted[index])
                        }
                    case .eventFD(let controlFile):
                        _ = Syscalls.drainEventFD(watch.fd)
                        if !Syscalls.exists(controlFile) {
                            fds[index].fd = -1  // Removing a v1 group signals its eventfds one last time.
                        } else {
                            emit(watch, at: time, last: &lastEmitted[index])
                        }
                    case .memoryEvents(let path, _):
                        guard let current = try? PressureMonitor.readOOMKills(fd: watch.fd, path: path) else {
                            fds[index].fd = -1
                            continue
                        }
                        if current > kills[index] {
                            let event = PressureEvent(
                                source: watch.source, level: .critical, time: time, oomKills: current - kills[index])
                            continuation.yield(event)
                        }
                        kills[index] = current
                    }
                }
            }

            closed.withLock { closed in
                closed = true
                Syscalls.close(wakeFD)
            }
            for watch in watches { watch.close() }
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
