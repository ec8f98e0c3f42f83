import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Direct file operations on cgroup2 directories: the core files (`cgroup.procs`,
/// `cgroup.freeze`, `cgroup.events`, `cgroup.kill`, `cgroup.subtree_control`) and the memory
/// files. libcgroup cannot create or attach through cgroup2, and plain IO is faster.
struct UnifiedHierarchy: Sendable {
    let logger: Logger

    /// Creates `directory`; an existing directory is fine.
    func createDirectory(_ directory: String) throws(CgroupError) {
        switch Syscalls.mkdir(directory) {
        case .success: return
        case .failure(let error) where error == .fileExists: return
        case .failure(let error): throw .from(error, "create the group", path: directory)
        }
    }

    /// The controllers available in `directory` (`cgroup.controllers`).
    func controllers(of directory: String) throws(CgroupError) -> Set<String> {
        let text = try read(directory + "/cgroup.controllers", "read the available controllers from")
        return Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    }

    /// Enables `controllers` for the children of `directory` through `cgroup.subtree_control`.
    ///
    /// Controllers that are not available in `directory` are skipped. `EBUSY` means the group
    /// holds processes itself (the "no internal processes" rule) and is reported as such.
    func enableControllers(_ controllers: [String], in directory: String) throws(CgroupError) {
        let available = try self.controllers(of: directory)
        let wanted = controllers.filter { available.contains($0) }
        if wanted.isEmpty { return }
        let path = directory + "/cgroup.subtree_control"
        let text = wanted.map { "+" + $0 }.joined(separator: " ")
        switch Syscalls.writeText(text, to: path) {
        case .success: return
        case .failure(let error) where error == .busy:
            throw CgroupError(
                code: .permissionDenied,
                message: "Could not enable the \(wanted.joined(separator: ", ")) controller in \"\(path)\" because "
                    + "the group holds processes itself; move them into a leaf group first, as a systemd service "
                    + "with Delegate=yes lets appwarden do.",
                cause: error.description)
        case .failure(let error):
            throw .from(error, "enable controllers in", path: path)
        }
    }

    /// Moves `pid` into `directory` by writing it to `cgroup.procs`.
    func attach(_ pid: Int32, to directory: String) throws(CgroupError) {
        let path = directory + "/cgroup.procs"
        if case .failure(let error) = Syscalls.writeText(String(pid), to: path) {
            throw .from(error, "move process \(pid) into", path: path)
        }
    }

    /// The processes in `directory`; a vanished group has none.
    func processes(in directory: String) throws(CgroupError) -> [Int32] {
        let path = directory + "/cgroup.procs"
        switch Syscalls.readText(path) {
        case .success(let text):
            return try CgroupFileParser.processIDs(text, path: path)
        case .failure(let error) where error.meansVanished:
            logger.debug("The group vanished while its processes were listed.", metadata: ["path": "\(path)"])
            return []
        case .failure(let error):
            throw .from(error, "list the processes in", path: path)
        }
    }

    /// The `cgroup.events` keys (`populated`, `frozen`); a vanished group reads as empty.
    func events(of directory: String) throws(CgroupError) -> [String: UInt64] {
        let path = directory + "/cgroup.events"
        switch Syscalls.readText(path) {
        case .success(let text): return try CgroupFileParser.keyedValues(text, path: path)
        case .failure(let error) where error.meansVanished: return ["populated": 0, "frozen": 0]
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }

    /// Whether `cgroup.events` reports the group frozen.
    func isFrozen(_ directory: String) throws(CgroupError) -> Bool {
        try events(of: directory)["frozen"] == 1
    }

    /// Writes `1` to `cgroup.freeze` and waits until `cgroup.events` reads `frozen 1`.
    ///
    /// The file is re-read right after the write (notifications are rate-limited), then `poll`
    /// waits for `POLLPRI` on `cgroup.events` in 1 ms slices, re-reading after each, until the deadline.
    func freeze(_ directory: String, timeout: Duration) throws(CgroupError) {
        try write("1", to: directory + "/cgroup.freeze", "freeze the group through")
        try waitForEvent(directory, key: "frozen", value: 1, timeout: timeout, what: "frozen")
    }

    /// Writes `0` to `cgroup.freeze`.
    func thaw(_ directory: String) throws(CgroupError) {
        try write("0", to: directory + "/cgroup.freeze", "thaw the group through")
    }

    /// Writes `1` to `cgroup.kill`, runs `afterSignal`, and waits until `cgroup.events` reads
    /// `populated 0`.
    ///
    /// Frozen cgroup2 tasks die without a thaw. A vanished group is already empty.
    func kill(_ directory: String, timeout: Duration, afterSignal: () -> Void = {}) throws(CgroupError) {
        let path = directory + "/cgroup.kill"
        switch Syscalls.writeText("1", to: path) {
        case .success: break
        case .failure(let error) where error.meansVanished:
            logger.debug("The group vanished before it was killed.", metadata: ["path": "\(directory)"])
            return
        case .failure(let error): throw .from(error, "kill the group through", path: path)
        }
        afterSignal()
        try waitForEvent(directory, key: "populated", value: 0, timeout: timeout, what: "empty")
    }

    /// Removes `directory`; a vanished group is not an error.
    func remove(_ directory: String) throws(CgroupError) {
        switch Syscalls.rmdir(directory) {
        case .success: return
        case .failure(let error) where error.meansVanished: return
        case .failure(let error) where error == .busy:
            throw CgroupError(
                code: .io, message: "Could not remove the group \"\(directory)\" because it still holds processes.",
                cause: error.description)
        case .failure(let error): throw .from(error, "remove the group", path: directory)
        }
    }

    /// Writes `memory.max` and `memory.high` ("max" for no limit).
    func setMemoryLimits(_ limits: MemoryLimits, in directory: String) throws(CgroupError) {
        try write(limits.high.map(String.init) ?? "max", to: directory + "/memory.high", "set the memory limit in")
        try write(limits.max.map(String.init) ?? "max", to: directory + "/memory.max", "set the memory limit in")
    }

    /// Reads `memory.stat`, `memory.current` and, where present, `memory.swap.current` and `memory.peak`.
    func memoryStatistics(of directory: String) throws(CgroupError) -> MemoryStatistics {
        let stat = try read(directory + "/memory.stat", "read")
        let current = try read(directory + "/memory.current", "read")
        let swap = try? Syscalls.readText(directory + "/memory.swap.current").get()
        let peak = try? Syscalls.readText(directory + "/memory.peak").get()
        return try MemoryStatistics.unified(
            stat: stat, current: current, swapCurrent: swap, peak: peak, directory: directory)
    }

    /// Reads `memory.pressure`, or nil when the kernel has no PSI for the group.
    func memoryPressure(of directory: String) throws(CgroupError) -> PressureStall? {
        try pressure("memory.pressure", of: directory)
    }

    /// Writes `cpu.weight`, `cpu.max`, the I/O weight (`setIOWeight`) and, where it matters,
    /// `cpu.idle` of the group in `directory`.
    func setCPU(_ controls: CPUControls, in directory: String) throws(CgroupError) {
        try write(String(controls.v2Weight), to: directory + "/cpu.weight", "set the CPU weight in")
        try write(controls.v2Max, to: directory + "/cpu.max", "set the CPU cap in")
        if let weight = controls.ioWeight { try setIOWeight(weight, in: directory) }
        let idlePath = directory + "/cpu.idle"
        switch Syscalls.writeText(controls.idle ? "1" : "0", to: idlePath) {
        case .success: return
        case .failure(let error) where error.meansVanished && !controls.idle:
            return  // A kernel before 5.15 has no idle groups; nothing was asked of them.
        case .failure(let error) where error.meansVanished:
            throw CgroupError(
                code: .missingController,
                message:
                    "An idle CPU group (background_idle) needs Linux 5.15 or later; \"\(idlePath)\" does not exist.",
                cause: error.description)
        case .failure(let error): throw .from(error, "set the idle flag in", path: idlePath)
        }
    }

    /// The CPU time the tasks of the group in `directory` have used (`cpu.stat` `usage_usec`);
    /// nil for a vanished group.
    func cpuUsage(of directory: String) throws(CgroupError) -> Duration? {
        let path = directory + "/cpu.stat"
        switch Syscalls.readText(path) {
        case .success(let text): return try CgroupFileParser.cpuUsage(text, path: path)
        case .failure(let error) where error.meansVanished: return nil
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }

    /// Writes the group's I/O weight to each file the kernel has for it: `io.weight` (the io
    /// controller's, 1...10000, honoured where a drive has `io.cost` on) and `io.bfq.weight` (BFQ's,
    /// 1...1000, honoured on a drive whose scheduler is BFQ). A file the kernel lacks is skipped.
    func setIOWeight(_ weight: Int, in directory: String) throws(CgroupError) {
        let files = [("io.weight", min(10_000, max(1, weight))), ("io.bfq.weight", min(1000, max(1, weight)))]
        for (file, value) in files {
            let path = directory + "/" + file
            switch Syscalls.writeText(String(value), to: path) {
            case .success: continue
            case .failure(let error) where error.meansVanished: continue
            case .failure(let error): throw .from(error, "set the I/O weight in", path: path)
            }
        }
    }

    /// How long the group's tasks waited on memory or for a CPU, in total: the `some` totals of
    /// `memory.pressure` and `cpu.pressure`; nil when the kernel has no PSI for the group.
    func stall(of directory: String) throws(CgroupError) -> Duration? {
        guard let memory = try pressure("memory.pressure", of: directory) else { return nil }
        let cpu = try pressure("cpu.pressure", of: directory)
        return .microseconds(memory.some.total) + .microseconds(cpu?.some.total ?? 0)
    }

    /// Reads the PSI file `file` of the group, or nil when the kernel has none for it.
    private func pressure(_ file: String, of directory: String) throws(CgroupError) -> PressureStall? {
        let path = directory + "/" + file
        switch Syscalls.readText(path) {
        case .success(let text): return try PressureStall.parse(text, path: path)
        case .failure(let error) where error.meansVanished || error == .notSupported: return nil
        case .failure(let error): throw .from(error, "read", path: path)
        }
    }

    private func read(_ path: String, _ action: String) throws(CgroupError) -> String {
        switch Syscalls.readText(path) {
        case .success(let text): return text
        case .failure(let error): throw .from(error, action, path: path)
        }
    }

    private func write(_ text: String, to path: String, _ action: String) throws(CgroupError) {
        if case .failure(let error) = Syscalls.writeText(text, to: path) {
            throw .from(error, action, path: path)
        }
    }

    /// Waits until `cgroup.events` of `directory` has `key` equal to `value`, or throws `timeout`.
    private func waitForEvent(
        _ directory: String, key: String, value: UInt64, timeout: Duration, what: String
    ) throws(CgroupError) {
        let path = directory + "/cgroup.events"
        let fd: Int32
        switch Syscalls.open(path, O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let error) where error.meansVanished: return
        case .failure(let error): throw .from(error, "watch", path: path)
        }
        defer { Syscalls.close(fd) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { Syscalls.pread(fd, into: $0, at: 0) }
            switch count {
            case .success(let count):
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                if try CgroupFileParser.keyedValues(text, path: path)[key] == value { return }
            case .failure(let error) where error.meansVanished:
                return
            case .failure(let error):
                throw .from(error, "read", path: path)
            }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero {
                throw CgroupError(
                    code: .timeout,
                    message: "The group \"\(directory)\" did not become \(what) within \(timeout.formattedForMessage); "
                        + "\"\(path)\" still does not read \"\(key) \(value)\".",
                    cause: "waited \(timeout.formattedForMessage)")
            }
            // The kernel rate-limits cgroup.events notifications, so a notification can lag the
            // change by up to its interval; short slices make the re-read catch it sooner.
            var fds = [pollfd(fd: fd, events: Int16(POLLPRI), revents: 0)]
            let slice = min(remaining, .milliseconds(1))
            _ = Syscalls.poll(&fds, timeoutMilliseconds: Int32(max(1, slice.milliseconds)))
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// "250 ms" or "1.5 s", for messages.
    var formattedForMessage: String {
        let ms = milliseconds
        if ms < 1000 { return "\(ms) ms" }
        if ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(Double(ms) / 1000) s"
    }
}
