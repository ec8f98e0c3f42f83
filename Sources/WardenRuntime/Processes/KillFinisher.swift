import WardenCgroup

/// Waits beside the daemon's loop for killed groups that did not empty while the loop waited
/// (`AppProcesses.killWaitOnLoop`): a process in uninterruptible sleep, on a device starved of
/// memory or I/O, dies only when it wakes, and every other kill, verb and read would wait with it.
/// Each group is looked at again and again, less often the longer it takes, until it is empty
/// or `timeout` has passed; the outcome goes back to the loop, which removes the group.
final class KillFinisher: Sendable {
    /// One killed group to wait for.
    struct Request: Sendable {
        var app: String
        var group: AppGroup
    }

    private let requests: AsyncStream<Request>
    private let queue: AsyncStream<Request>.Continuation
    private let timeout: Duration

    /// Makes a finisher that gives up on a group after `timeout`.
    init(timeout: Duration) {
        (requests, queue) = AsyncStream.makeStream(of: Request.self)
        self.timeout = timeout
    }

    /// Queues `request`; the inbox counts it as work until its outcome is posted.
    func enqueue(_ request: Request, inbox: DaemonInbox) {
        guard inbox.beginWork() else { return }
        if case .terminated = queue.yield(request) { inbox.finished() }
    }

    /// Waits for each queued group in a task of its own until `stop()`, posting whether it
    /// emptied to the loop (`AppProcesses.killFinished`); waits still going at the stop end there.
    func run(driver: (any CgroupDriver)?, clock: WardenClock, inbox: DaemonInbox) async {
        await withDiscardingTaskGroup { group in
            for await request in requests {
                group.addTask {
                    defer { inbox.finished() }
                    guard let driver else { return }
                    guard let emptied = await self.wait(for: request.group, driver: driver, clock: clock) else {
                        return
                    }
                    _ = inbox.post(.work { daemon in await daemon.processes.killFinished(request, emptied: emptied) })
                }
            }
            group.cancelAll()
        }
    }

    /// Takes no more requests.
    func stop() {
        queue.finish()
    }

    /// Whether `group` emptied within the timeout; nil when the wait was cancelled.
    private func wait(for group: AppGroup, driver: any CgroupDriver, clock: WardenClock) async -> Bool? {
        let deadline = clock.elapsed() + timeout
        var pause = Duration.milliseconds(10)
        while true {
            if ((try? await driver.processes(in: group)) ?? []).isEmpty { return true }
            let now = clock.elapsed()
            if now >= deadline { return false }
            do {
                try await clock.sleep(untilElapsed: min(deadline, now + pause))
            } catch {
                return nil
            }
            pause = min(pause * 2, .milliseconds(500))
        }
    }
}
