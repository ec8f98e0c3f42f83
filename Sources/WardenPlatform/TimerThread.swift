import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sleeps on a thread of its own, parked in `poll(2)` until the earliest deadline (to the
/// millisecond, rounded up), for the long sleeps of a daemon that is idle most of the time.
///
/// A sleep on Swift's clocks is a libdispatch timer, and on Linux libdispatch wakes its timer
/// thread once a second for as long as a timer longer than a second is pending (a sleep of an
/// hour costs 3,600 wake-ups, about 0.005 % of a CPU on the build host). Here a sleep costs one
/// wake-up when it ends, and one when a new sleep ends before every pending one.
public final class TimerThread: Sendable {
    /// The thread every caller shares, started on first use.
    public static let shared = TimerThread(name: "appwarden-timer")

    private struct Sleeper {
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps cancelled before their continuation was registered.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    /// What the callers and the thread share: the pending sleeps, and a pipe whose write end
    /// tells the thread a new deadline came earlier than the ones it waits for.
    private final class Shared: Sendable {
        let state = Mutex(State())
        let wakeDescriptor: Int32
        let readDescriptor: Int32

        init(readDescriptor: Int32, wakeDescriptor: Int32) {
            self.readDescriptor = readDescriptor
            self.wakeDescriptor = wakeDescriptor
        }
    }

    /// nil where the thread could not start; sleeps are then left to the clock.
    private let shared: Shared?

    private init(name: String) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            shared = nil
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        let shared = Shared(readDescriptor: ends[0], wakeDescriptor: ends[1])
        do {
            try DetachedThread.start(name: name) { Self.loop(shared) }
            self.shared = shared
        } catch {
            for end in ends { close(end) }
            self.shared = nil
        }
    }

    /// Sleeps until `deadline` (returns at once if it has passed).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        guard let shared else { return try await ContinuousClock().sleep(until: deadline, tolerance: nil) }
        try Task.checkCancellation()
        let id = shared.state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, earliest) = shared.state.withLock { state -> (Bool, Bool) in
                    if state.cancelled.remove(id) != nil { return (true, false) }
                    let earliest = state.sleepers.values.allSatisfy { deadline < $0.deadline }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (false, earliest)
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else if earliest {
                    var byte: UInt8 = 1
                    _ = write(shared.wakeDescriptor, &byte, 1)
                }
            }
        } onCancel: {
            let sleeper = shared.state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The thread's loop: resumes the sleeps whose deadline has passed, then waits in `poll`
    /// until the earliest pending one or a wake-up through the pipe.
    private static func loop(_ shared: Shared) {
        let wake = shared.readDescriptor
        while true {
            let now = ContinuousClock.now
            let (due, earliest) = shared.state.withLock {
                state -> ([CheckedContinuation<Void, any Error>], ContinuousClock.Instant?) in
                var due: [CheckedContinuation<Void, any Error>] = []
                var earliest: ContinuousClock.Instant?
                for (id, sleeper) in state.sleepers {
                    if sleeper.deadline <= now {
                        due.append(sleeper.continuation)
                        state.sleepers[id] = nil
                    } else if earliest.map({ sleeper.deadline < $0 }) ?? true {
                        earliest = sleeper.deadline
                    }
                }
                return (due, earliest)
            }
            for continuation in due { continuation.resume() }
            var descriptor = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
            var timeout: Int32 = -1
            if let earliest {
                // Rounded up: a sleep never ends before its deadline.
                let (seconds, attoseconds) = now.duration(to: earliest).components
                let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: millis)
            }
            _ = poll(&descriptor, 1, timeout)
            if descriptor.revents & Int16(POLLIN) != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                _ = read(wake, &bytes, bytes.count)
            }
        }
    }
}
