import Logging
import WardenCgroup
import WardenCore

/// Pushes frozen apps' memory out to swap beside the daemon's loop, one app at a time, so that
/// neither a thaw nor anything else the daemon does waits for it (`memory.reclaim` of a large
/// group can take a while). Each result goes back to the loop as `LifecycleEvent.compressed`.
final class SuspendedCompressor: Sendable {
    /// One frozen app to compress.
    struct Request: Sendable {
        var app: String
        var launch: Int
        var group: AppGroup
    }

    private let requests: AsyncStream<Request>
    private let queue: AsyncStream<Request>.Continuation

    init() {
        (requests, queue) = AsyncStream.makeStream(of: Request.self)
    }

    /// Queues `request`; the inbox counts it as work until its result is posted.
    func enqueue(_ request: Request, inbox: DaemonInbox) {
        guard inbox.beginWork() else { return }
        if case .terminated = queue.yield(request) { inbox.finished() }
    }

    /// Compresses the queued apps in order until `stop()`, posting each result to `inbox`. A
    /// kernel that offers no way is said once in the log, and nothing more is tried.
    func run(driver: (any CgroupDriver)?, inbox: DaemonInbox, logger: Logger) async {
        var unsupported = false
        for await request in requests {
            defer { inbox.finished() }
            guard let driver, !unsupported else { continue }
            do {
                let swapped = try await driver.compress(request.group)
                inbox.post(
                    .event(.compressed(app: request.app, launch: request.launch, swappedBytes: swapped), answer: nil))
            } catch  where error.code == .missingController {
                unsupported = true
                logger.notice("Suspended apps are not compressed: \(error.message)")
            } catch {
                logger.debug("Could not compress app \"\(request.app)\": \(error)")
            }
        }
    }

    /// Takes no more requests.
    func stop() {
        queue.finish()
    }
}
