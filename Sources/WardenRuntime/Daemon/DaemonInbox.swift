import Synchronization

/// The daemon's one queue: every input (an operator verb, an app call, a read, a timer's wake, a
/// kernel signal, a process that started or ended) is a job here, and the daemon's loop takes
/// them one at a time, each carried out whole before the next.
///
/// Posting never waits and may come from any thread (the process watcher's, the pressure
/// monitor's). `whenIdle()` returns once every job posted has been carried out, which is how a
/// test on a manual clock knows the daemon has nothing left to do.
final class DaemonInbox: Sendable {
    private struct State {
        /// Jobs posted and not yet carried out (the one being carried out included).
        var pending = 0
        var isClosed = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The jobs, for the daemon's loop alone.
    let jobs: AsyncStream<DaemonJob>
    private let continuation: AsyncStream<DaemonJob>.Continuation
    private let state = Mutex(State())

    init() {
        (jobs, continuation) = AsyncStream.makeStream(of: DaemonJob.self)
    }

    /// Queues `job`; false once the inbox is closed (the daemon is stopping).
    @discardableResult
    func post(_ job: DaemonJob) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.pending += 1
            return true
        }
        guard accepted else { return false }
        if case .terminated = continuation.yield(job) {
            finished()
            return false
        }
        return true
    }

    /// Counts work done beside the loop as pending until `finished()`, so that the inbox is not
    /// idle while it runs; false once the inbox is closed.
    func beginWork() -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.pending += 1
            return true
        }
    }

    /// Counts a job as carried out; wakes those waiting for the inbox to be idle.
    func finished() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.pending -= 1
            guard state.pending == 0 else { return [] }
            defer { state.idleWaiters.removeAll() }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no job is queued or being carried out.
    func whenIdle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.pending == 0 { return true }
                state.idleWaiters.append(waiter)
                return false
            }
            if idle { waiter.resume() }
        }
    }

    /// Takes no more jobs; those queued are still handed to the loop.
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isClosed = true
            guard state.pending == 0 else { return [] }
            defer { state.idleWaiters.removeAll() }
            return state.idleWaiters
        }
        continuation.finish()
        for waiter in waiters { waiter.resume() }
    }

    /// How many jobs are queued or being carried out.
    var pendingJobs: Int { state.withLock { $0.pending } }

    /// Whether the inbox takes jobs.
    var isOpen: Bool { state.withLock { !$0.isClosed } }
}
