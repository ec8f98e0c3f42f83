import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Direct file operations on cgroup v1 directories: the freezer (`freezer.state`), process
/// lists, kill-each, and the memory files sampled outside libcgroup.
struct LegacyHierarchy: Sendable {
    let logger: Logger

    /// The processes in `directory` (`cgroup.procs`); a vanished group has none.
    func processes(in directory: String) throws(CgroupError) -> [Int32] {
        let path = directory + "/cgroup.procs"
        switch Syscalls.readText(path) {
        case .success(let text): return try CgroupFileParser.processIDs(text, path: path)
        case .failure(let error) where error.meansVanished:
            logger.debug("The group vanished while its processes were listed.", metadata: ["path": "\(path)"])
            return []
        case .failure(let error): throw .from(error, "list the processes in", path: path)
        }
    }

    /// The text of `freezer.state`: `THAWED`, `FREEZING` or `FROZEN`; a vanished group reads `THAWED`.
    func freezerState(_ directory: String) throws(CgroupError) -> String {
        let path = directory + "/freezer.state"
        switch Syscalls.readText(path) {
        case .success(let text): return text.trimmingCharacters(in: " \n")
        case .failure(let error) where error.meansVanished: return "THAWED"
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }

    /// Writes `FROZEN` to `freezer.state` and waits until it reads `FROZEN`.
    func freeze(_ directory: String, timeout: Duration) throws(CgroupError) {
        let path = directory + "/freezer.state"
        if case .failure(let error) = Syscalls.writeText("FROZEN", to: path) {
            throw .from(error, "freeze the group through", path: path)
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let state = try freezerState(directory)
            if state == "FROZEN" { return }
            if clock.now >= deadline {
                throw CgroupError(
                    code: .timeout,
                    message: "The group \"\(directory)\" did not become frozen within "
                        + "\(timeout.formattedForMessage); \"\(path)\" still reads \"\(state)\".",
                    cause: "waited \(timeout.formattedForMessage)")
            }
            // freezer.state has no notification; the kernel finishes within a fraction of a millisecond.
            Self.pause(microseconds: 100)
        }
    }

    /// Writes `THAWED` to `freezer.state`; a vanished group is not an error.
    func thaw(_ directory: String) throws(CgroupError) {
        let path = directory + "/freezer.state"
        switch Syscalls.writeText("THAWED", to: path) {
        case .success: return
        case .failure(let error) where error.meansVanished: return
        case .failure(let error): throw .from(error, "thaw the group through", path: path)
        }
    }

    /// Sends SIGKILL to every process listed in `directories` until all are empty, at least once
    /// however short `timeout` is.
    ///
    /// After the first round `afterSignal` runs. After each round the freezer group, if any, is
    /// thawed: frozen v1 tasks cannot die until they run again. Processes that vanish on their own
    /// are not errors.
    func killEach(
        _ directories: [String], freezer: String?, timeout: Duration, afterSignal: () -> Void = {}
    ) throws(CgroupError) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var hasSignalled = false
        while true {
            var pids = Set<Int32>()
            for directory in directories { pids.formUnion(try processes(in: directory)) }
            if pids.isEmpty { return }
            if hasSignalled && clock.now >= deadline {
                throw CgroupError(
                    code: .timeout,
                    message: "The group \"\(directories.first ?? "")\" still holds \(pids.count) process(es) "
                        + "\(timeout.formattedForMessage) after they were sent SIGKILL.",
                    cause: "pids \(pids.sorted().map(String.init).joined(separator: " "))")
            }
            for pid in pids {
                if case .failure(let error) = Syscalls.kill(pid, SIGKILL), !error.meansVanished {
                    throw .from(error, "send SIGKILL to process \(pid) of", path: directories.first ?? "")
                }
            }
            hasSignalled = true
            afterSignal()
            if let freezer { try thaw(freezer) }
            Self.pause(microseconds: 200)
        }
    }

    /// Reads `memory.usage_in_bytes`, `memory.max_usage_in_bytes` and `memory.kmem.usage_in_bytes`
    /// and combines them with `memory.stat` values.
    func memoryStatistics(of directory: String, stat: [String: UInt64]) throws(CgroupError) -> MemoryStatistics {
        let usagePath = directory + "/memory.usage_in_bytes"
        let usage: String
        switch Syscalls.readText(usagePath) {
        case .success(let text): usage = text
        case .failure(let error): throw .from(error, "read", path: usagePath)
        }
        return try MemoryStatistics.v1(
            values: stat, usage: usage,
            maxUsage: try? Syscalls.readText(directory + "/memory.max_usage_in_bytes").get(),
            kernelUsage: try? Syscalls.readText(directory + "/memory.kmem.usage_in_bytes").get(),
            directory: directory)
    }

    /// Sleeps the calling thread briefly, for waits the kernel gives no notification for.
    static func pause(microseconds: Int) {
        var request = timespec(tv_sec: 0, tv_nsec: microseconds * 1000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
