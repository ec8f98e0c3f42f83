import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The memory of killed processes, handed back to the kernel at once instead of at the end of
/// their exit path.
///
/// A pidfd is opened for each process before the kill (`pidfd_open(2)`), so a pid reused later
/// cannot be released by mistake. Once the processes have been sent SIGKILL, `release()` calls
/// `process_mrelease(2)` on each pidfd: the kernel unmaps a dying process's memory in the caller's
/// context, as its OOM reaper does, even while the process is frozen or waits for a CPU. A kernel
/// without the call (`ENOSYS`, before Linux 5.15) is passed over silently, a process already
/// reaped (`ESRCH`) counts as done, and one that is not dying (`EINVAL`) is left to its exit path.
///
/// Before the kill, every thread of each process is also given the highest CPU priority (nice
/// −20, `setpriority(2)`), as lmkd does for its victims: a killed process still has to run its
/// exit path before its group is empty and the rest of its memory is free, and on a device with
/// few cores it would otherwise wait behind the app whose growth caused the kill. A process
/// whose priority cannot be raised (no `CAP_SYS_NICE`) is killed all the same.
final class MemoryRelease {
    /// What one release did.
    struct Report: Sendable, Equatable {
        /// Processes whose memory the kernel reaped.
        var released = 0
        /// Processes already gone, before their pidfd was opened or before the release.
        var gone = 0
        /// Processes that had no pending SIGKILL, or shared their memory with a live process.
        var notDying = 0
        /// Whether the kernel lacks `process_mrelease(2)`.
        var unsupported = false
        /// Threads given the highest CPU priority before the kill.
        var prioritized = 0
    }

    /// The nice value a victim's threads get before the kill: the highest priority.
    static let victimNice: Int32 = -20

    private var pidfds: [(pid: Int32, fd: Int32)] = []
    private var report = Report()
    private var done = false
    private let logger: Logger

    /// Opens a pidfd for each of `pids` and raises the priority of their threads; a process that
    /// has already ended is counted as gone.
    init(pids: [Int32], logger: Logger) {
        self.logger = logger
        for pid in pids {
            switch Syscalls.openPidFD(pid) {
            case .success(let fd):
                pidfds.append((pid, fd))
                report.prioritized += Self.prioritize(pid)
            case .failure(let error) where error.meansVanished:
                report.gone += 1
            case .failure(let error):
                logger.debug("Could not open a pidfd for process \(pid): \(error)")
            }
        }
    }

    /// Gives every thread of `pid` (`/proc/PID/task`) the highest CPU priority; returns how many.
    static func prioritize(_ pid: Int32) -> Int {
        guard case .success(let threads) = Syscalls.listDirectory("/proc/\(pid)/task") else { return 0 }
        var raised = 0
        for thread in threads {
            guard let tid = Int32(thread), case .success = Syscalls.setNice(thread: tid, to: victimNice) else {
                continue
            }
            raised += 1
        }
        return raised
    }

    deinit {
        for (_, fd) in pidfds { Syscalls.close(fd) }
    }

    /// Releases the memory of every process, once; later calls return the first report.
    @discardableResult
    func release() -> Report {
        if done { return report }
        done = true
        for (pid, fd) in pidfds {
            if report.unsupported { break }
            switch Syscalls.releaseMemory(pidfd: fd) {
            case .success:
                report.released += 1
            case .failure(let error) where error.rawValue == ENOSYS:
                report.unsupported = true
            case .failure(let error) where error.meansVanished:
                report.gone += 1
            case .failure(let error) where error == .invalidArgument:
                report.notDying += 1
            case .failure(let error):
                logger.debug("Could not release the memory of process \(pid): \(error)")
            }
        }
        for (_, fd) in pidfds { Syscalls.close(fd) }
        pidfds = []
        logger.debug(
            "Released the memory of killed processes.",
            metadata: [
                "released": "\(report.released)", "gone": "\(report.gone)", "notDying": "\(report.notDying)",
                "unsupported": "\(report.unsupported)", "prioritized": "\(report.prioritized)",
            ])
        return report
    }
}
