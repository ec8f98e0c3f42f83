import CoreMetrics
import Dispatch
import FoundationEssentials
import Logging
import Synchronization
import WardenCgroup
public import WardenCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs the operator's hooks (`[hooks]`): each command with `/bin/sh -c`, in a process group of
/// its own, outside every app's group (it stays in the daemon's), with the invocation's facts in
/// its environment and its output, line by line, in the daemon's log.
///
/// `start(_:)` only queues the invocation: `run(clock:)`, a child of the daemon's task group,
/// starts each hook in a task of its own, so a hook never delays the kill or anything else the
/// daemon does. Its output is relayed and its end awaited on a worker thread; a hook still
/// running when its timeout ends on the daemon's clock has its whole process group killed.
public final class HookRunner: Sendable {
    /// How one run ended.
    public enum Outcome: Sendable, Equatable {
        /// The shell ended on its own with this exit status (128 + N for signal N).
        case finished(status: Int32)
        /// The shell could not be started.
        case failed(String)
        /// The timeout ended first and the process group was killed.
        case timedOut
    }

    /// One finished run: which hook, and how it ended.
    public struct Run: Sendable, Equatable {
        public var kind: HookInvocation.Kind
        public var app: String?
        public var outcome: Outcome
    }

    let logger: Logger
    let metrics: WardenMetrics?
    /// Variables every hook receives besides the invocation's (`PATH`, `APPWARDEN_SOCKET`, …).
    let baseEnvironment: [String: String]
    private let finished = Mutex<[Run]>([])
    private let invocations: AsyncStream<HookInvocation>
    private let queue: AsyncStream<HookInvocation>.Continuation

    init(logger: Logger, metrics: WardenMetrics?, baseEnvironment: [String: String]) {
        self.logger = logger
        self.metrics = metrics
        self.baseEnvironment = baseEnvironment
        (invocations, queue) = AsyncStream.makeStream(of: HookInvocation.self)
    }

    /// The runs that have ended, oldest first.
    public var runs: [Run] { finished.withLock { $0 } }

    /// Queues `hook` and returns at once.
    func start(_ hook: HookInvocation) {
        queue.yield(hook)
    }

    /// Runs the hooks queued, each in a task of its own, until `stop()`; then waits for those
    /// still running.
    func run(clock: WardenClock) async {
        await withDiscardingTaskGroup { group in
            for await hook in invocations {
                group.addTask { await self.execute(hook, clock: clock) }
            }
        }
    }

    /// Takes no more hooks.
    func stop() {
        queue.finish()
    }

    /// Runs `hook` to its end or its timeout.
    private func execute(_ hook: HookInvocation, clock: WardenClock) async {
        let name = hook.kind.policyKey + (hook.app.map { " (app \"\($0)\")" } ?? "")
        var environment = baseEnvironment
        environment.merge(hook.environment) { _, new in new }
        let started: (pid: pid_t, output: Int32)
        do {
            started = try Self.spawn(command: hook.command, environment: environment)
        } catch {
            logger.error("Could not run hook \(name): \(error.message)")
            end(hook, .failed(error.message))
            return
        }
        logger.info("Running hook \(name) as process \(started.pid).")
        let state = RunState()
        let timeout = hook.timeout
        let logger = logger
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await Self.waitForEnd(of: started, name: name, logger: logger, state: state) }
            group.addTask {
                // Cancelled: the hook ended, or the daemon stops (and its hooks with it).
                let timedOut = (try? await clock.sleep(untilElapsed: clock.elapsed() + timeout)) != nil
                state.withLock { state in
                    // The shell is not reaped before `isReaped` is set under this lock, so its pid
                    // (the group's id) cannot have been reused yet.
                    guard !state.isReaped else { return }
                    state.timedOut = timedOut
                    _ = kill(-started.pid, SIGKILL)
                }
                return nil
            }
            var status: Int32 = 0
            for await result in group {
                guard let result else { continue }
                status = result
                group.cancelAll()
            }
            return status
        }
        if state.withLock({ $0.timedOut }) {
            logger.warning(
                "Hook \(name) ran longer than \(DurationFormat.string(timeout)); its process group was killed.")
            end(hook, .timedOut)
            return
        }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        if code != 0 {
            logger.warning("Hook \(name) ended with status \(code).")
        }
        end(hook, .finished(status: code))
    }

    /// Relays the hook's output to the log and reaps the shell, on a worker thread; returns its
    /// wait status.
    private static func waitForEnd(
        of started: (pid: pid_t, output: Int32), name: String, logger: Logger, state: RunState
    ) async -> Int32 {
        await withCheckedContinuation { (ended: CheckedContinuation<Int32, Never>) in
            DispatchQueue.global().async {
                relay(started.output, to: logger, name: name)
                var info = siginfo_t()
                while waitid(P_PID, id_t(started.pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                let status = state.withLock { state -> Int32 in
                    var status: Int32 = 0
                    while waitpid(started.pid, &status, 0) < 0 && errno == EINTR {}
                    state.isReaped = true
                    return status
                }
                ended.resume(returning: status)
            }
        }
    }

    /// What the waiter and the timeout of one run share, under one lock.
    private final class RunState: Sendable {
        struct Flags {
            var isReaped = false
            var timedOut = false
        }

        private let flags = Mutex(Flags())

        func withLock<Result>(_ body: (inout Flags) -> Result) -> Result {
            flags.withLock { body(&$0) }
        }
    }

    private func end(_ hook: HookInvocation, _ outcome: Outcome) {
        let label =
            switch outcome {
            case .finished(status: 0): "finished"
            case .finished, .failed: "failed"
            case .timedOut: "timedOut"
            }
        metrics?.hookRun(hook.kind, outcome: label).increment()
        finished.withLock { $0.append(Run(kind: hook.kind, app: hook.app, outcome: outcome)) }
    }

    /// Logs each line read from `descriptor` until its end, then closes it.
    private static func relay(_ descriptor: Int32, to logger: Logger, name: String) {
        defer { close(descriptor) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        func flush(_ line: ArraySlice<UInt8>) {
            let text = String(decoding: line, as: UTF8.self)
            if !text.isEmpty { logger.info("Hook \(name): \(text)") }
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                flush(pending[..<newline])
                pending.removeSubrange(...newline)
            }
            // A line longer than this is logged in pieces rather than held without bound.
            if pending.count > 16_384 {
                flush(pending[...])
                pending.removeAll()
            }
        }
        flush(pending[...])
    }

    struct SpawnError: Error {
        var message: String
    }

    /// Starts `/bin/sh -c command` (posix_spawn) in a new process group, standard input from
    /// /dev/null, standard output and error into a pipe; returns its pid and the pipe's read end.
    /// Signals the daemon ignores are reset to their defaults for it.
    static func spawn(command: String, environment: [String: String]) throws(SpawnError) -> (pid: pid_t, output: Int32)
    {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            throw SpawnError(message: "no pipe for its output (\(String(cString: strerror(errno))))")
        }
        // Neither end may outlive this spawn in other children of the daemon.
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        defer { close(pipeEnds[1]) }
        do {
            let pid = try ShellSpawn.start(
                command, environment: environment, descriptors: .init(inputFromNull: true, output: pipeEnds[1]),
                newProcessGroup: true)
            return (pid, pipeEnds[0])
        } catch {
            close(pipeEnds[0])
            throw SpawnError(message: "/bin/sh could not be started (\(error))")
        }
    }

}

extension HookRunner {
    /// What every hook's environment holds besides its invocation's facts: the daemon's `PATH`,
    /// `HOME`, `LANG` and `TZ`, the control socket, and `APPWARDEN_DRY_RUN=1` in a dry run.
    static func environment(options: WardenDaemonOptions) -> [String: String] {
        var environment: [String: String] = [:]
        let inherited = ProcessInfo.processInfo.environment
        for key in ["PATH", "HOME", "LANG", "TZ"] {
            if let value = inherited[key] { environment[key] = value }
        }
        environment["PATH"] = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        environment["APPWARDEN_SOCKET"] = options.socketPath
        if options.dryRun { environment["APPWARDEN_DRY_RUN"] = "1" }
        return environment
    }
}
