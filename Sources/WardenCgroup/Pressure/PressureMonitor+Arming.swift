#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One armed source: an open descriptor to poll.
struct PressureWatch: Sendable {
    enum Kind: Sendable {
        /// A PSI trigger descriptor; POLLPRI when it fires.
        case psi
        /// An eventfd registered through `cgroup.event_control`; `controlFile` is the file it
        /// was registered for, gone when the group is removed.
        case eventFD(controlFile: String)
        /// A `memory.events` descriptor; POLLPRI when it changes; `initialKills` is `oom_kill` at arming.
        case memoryEvents(path: String, initialKills: UInt64)
    }

    var kind: Kind
    var fd: Int32
    var source: PressureEvent.Source
    var level: PressureEvent.Level
    var armedSource: PressureMonitor.Source
    /// The source as it was asked for (a PSI trigger's window may differ once armed).
    var requestedSource: PressureMonitor.Source

    /// The poll events to wait for on `fd`.
    var pollEvents: Int16 {
        switch kind {
        case .eventFD: return Int16(POLLIN)
        case .psi, .memoryEvents: return Int16(POLLPRI)
        }
    }

    func close() {
        if fd >= 0 { Syscalls.close(fd) }
    }
}

extension PressureMonitor {
    /// Opens and registers every source; on failure closes what was opened and throws.
    static func arm(_ sources: [Source]) throws(CgroupError) -> [PressureWatch] {
        var watches: [PressureWatch] = []
        do throws(CgroupError) {
            for source in sources {
                watches.append(try arm(source))
            }
        } catch {
            for watch in watches { watch.close() }
            throw error
        }
        return watches
    }

    static func arm(_ source: Source) throws(CgroupError) -> PressureWatch {
        switch source {
        case .psi(let path, let kind, let stall, let window, let level):
            var watch = try armPSI(path: path, kind: kind, stall: stall, window: window, level: level)
            watch.requestedSource = source
            return watch
        case .pressureLevel(let group, let level, let mode):
            let argument: String
            switch level {
            case .normal, .low: argument = "low"
            case .medium: argument = "medium"
            case .critical: argument = "critical"
            }
            let fd = try registerEventFD(
                group: group, file: "memory.pressure_level",
                arguments: mode == .default ? argument : "\(argument),\(mode.rawValue)")
            return PressureWatch(
                kind: .eventFD(controlFile: group + "/memory.pressure_level"), fd: fd,
                source: .pressureLevel(group: group), level: level == .normal ? .low : level, armedSource: source,
                requestedSource: source)
        case .usageThreshold(let group, let bytes):
            let fd = try registerEventFD(group: group, file: "memory.usage_in_bytes", arguments: "\(bytes)")
            return PressureWatch(
                kind: .eventFD(controlFile: group + "/memory.usage_in_bytes"), fd: fd,
                source: .usageThreshold(group: group, bytes: bytes), level: .normal, armedSource: source,
                requestedSource: source)
        case .oomControl(let group):
            let fd = try registerEventFD(group: group, file: "memory.oom_control", arguments: nil)
            return PressureWatch(
                kind: .eventFD(controlFile: group + "/memory.oom_control"), fd: fd, source: .oomControl(group: group),
                level: .critical, armedSource: source, requestedSource: source)
        case .memoryEvents(let group):
            let path = group + "/memory.events"
            let fd = try open(path, O_RDONLY, "open the memory events file")
            let kills: UInt64
            do throws(CgroupError) {
                kills = try readOOMKills(fd: fd, path: path)
            } catch {
                Syscalls.close(fd)
                throw error
            }
            return PressureWatch(
                kind: .memoryEvents(path: path, initialKills: kills), fd: fd, source: .memoryEvents(group: group),
                level: .critical, armedSource: source, requestedSource: source)
        }
    }

    /// Opens `path` and writes the first PSI trigger the kernel accepts (see `psiAttempts`).
    private static func armPSI(
        path: String, kind: Source.StallKind, stall: Duration, window: Duration, level: PressureEvent.Level
    ) throws(CgroupError) -> PressureWatch {
        let fd = try open(path, O_RDWR | O_NONBLOCK, "open the pressure file")
        let attempts = psiAttempts(stall: stall, window: window)
        let outcome = probeTrigger(kind: kind, attempts: attempts) { trigger in
            // The kernel reads the trigger as a C string: the terminating NUL is part of the write.
            var bytes = Array(trigger.utf8)
            bytes.append(0)
            return bytes.withUnsafeBytes { Syscalls.write(fd, $0) }.map { _ in () }
        }
        switch outcome {
        case .success(let accepted):
            return PressureWatch(
                kind: .psi, fd: fd, source: .psi(path: path), level: level,
                armedSource: .psi(path: path, kind: kind, stall: accepted.stall, window: accepted.window, level: level),
                requestedSource: .psi(path: path, kind: kind, stall: stall, window: window, level: level))
        case .failure(let error):
            Syscalls.close(fd)
            throw psiRefusal(error, path: path, kind: kind, attempts: attempts)
        }
    }

    /// The triggers to try, in order: the window asked for, then each longer window a kernel may
    /// accept (1 s, 2 s, and the next multiple of 2 s, all a kernel takes without
    /// CAP_SYS_RESOURCE), the stall scaled with the window.
    static func psiAttempts(stall: Duration, window: Duration) -> [(stall: Duration, window: Duration)] {
        let twoSeconds = Duration.seconds(2)
        var windows = [window]
        for longer in [Duration.seconds(1), twoSeconds] where longer > window { windows.append(longer) }
        let widened = Swift.max(twoSeconds, twoSeconds * Int((window / twoSeconds).rounded(.up)))
        if !windows.contains(widened) { windows.append(widened) }
        return windows.map { (stall * ($0 / window), $0) }
    }

    /// Writes the triggers of `attempts` in order until `write` accepts one, and returns it.
    ///
    /// Only EINVAL (a window or stall this kernel refuses) moves on to the next attempt; any
    /// other error is returned at once, as is the last EINVAL.
    static func probeTrigger(
        kind: Source.StallKind, attempts: [(stall: Duration, window: Duration)],
        write: (String) -> Result<Void, Errno>
    ) -> Result<(stall: Duration, window: Duration), Errno> {
        var lastError = Errno.invalidArgument
        for attempt in attempts {
            switch write("\(kind.rawValue) \(microseconds(attempt.stall)) \(microseconds(attempt.window))") {
            case .success: return .success(attempt)
            case .failure(let error):
                lastError = error
                if error != .invalidArgument { return .failure(error) }
            }
        }
        return .failure(lastError)
    }

    /// The error for a PSI trigger that could not be written.
    static func psiRefusal(
        _ error: Errno, path: String, kind: Source.StallKind, attempts: [(stall: Duration, window: Duration)]
    ) -> CgroupError {
        guard error == .invalidArgument, let first = attempts.first else {
            return CgroupError.from(error, "write a PSI trigger to", path: path)
        }
        let windows = attempts.map { "\(microseconds($0.window) / 1000) ms" }.joined(separator: ", ")
        return CgroupError(
            code: .io,
            message: "The kernel refused the PSI trigger \"\(kind.rawValue) \(microseconds(first.stall)) "
                + "\(microseconds(first.window))\" on \"\(path)\" with every window tried (\(windows)); the stall must "
                + "be shorter than the window and the window between 500 ms and 10 s.",
            cause: error.description
        )
    }

    /// Registers an eventfd for `group/file` through `group/cgroup.event_control`.
    private static func registerEventFD(group: String, file: String, arguments: String?) throws(CgroupError) -> Int32 {
        let path = group + "/" + file
        let fileFD = try open(path, O_RDONLY, "open the notification file")
        defer { Syscalls.close(fileFD) }
        let eventFD: Int32
        switch Syscalls.eventFD() {
        case .success(let fd): eventFD = fd
        case .failure(let error):
            throw CgroupError(
                code: .io, message: "Could not create an eventfd for \"\(path)\".", cause: error.description)
        }
        let control = group + "/cgroup.event_control"
        let line = "\(eventFD) \(fileFD)" + (arguments.map { " " + $0 } ?? "")
        if case .failure(let error) = Syscalls.writeText(line, to: control) {
            Syscalls.close(eventFD)
            throw CgroupError.from(error, "register a notification for \(file) through", path: control)
        }
        return eventFD
    }

    private static func open(_ path: String, _ flags: Int32, _ action: String) throws(CgroupError) -> Int32 {
        switch Syscalls.open(path, flags) {
        case .success(let fd): return fd
        case .failure(let error):
            var failure = CgroupError.from(error, action, path: path)
            if error.meansVanished {
                failure.code = .missingController
                failure.message += " The host's kernel or this group does not offer it."
            }
            throw failure
        }
    }

    /// Reads the `oom_kill` counter from an open `memory.events` descriptor (0 when the line is absent).
    static func readOOMKills(fd: Int32, path: String) throws(CgroupError) -> UInt64 {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let result = buffer.withUnsafeMutableBytes { Syscalls.pread(fd, into: $0, at: 0) }
        switch result {
        case .success(let count):
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            return try CgroupFileParser.keyedValues(text, path: path)["oom_kill"] ?? 0
        case .failure(let error):
            throw CgroupError.from(error, "read", path: path)
        }
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
