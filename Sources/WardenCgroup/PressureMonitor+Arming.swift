#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One armed source: an open descriptor to poll (or none, for `MemAvailable` polling).
struct PressureWatch: Sendable {
    enum Kind: Sendable {
        /// A PSI trigger descriptor; POLLPRI when it fires.
        case psi
        /// An eventfd registered through `cgroup.event_control`; `controlFile` is the file it
        /// was registered for, gone when the group is removed.
        case eventFD(controlFile: String)
        /// A `memory.events` descriptor; POLLPRI when it changes; `initialKills` is `oom_kill` at arming.
        case memoryEvents(path: String, initialKills: UInt64)
        /// `MemAvailable` polling of a meminfo file.
        case memAvailable(
            meminfoPath: String, warningBelow: UInt64, criticalBelow: UInt64, fastest: Duration, slowest: Duration)
    }

    var kind: Kind
    var fd: Int32
    var source: PressureEvent.Source
    var level: PressureEvent.Level
    var armedSource: PressureMonitor.Source

    /// The poll events to wait for on `fd`.
    var pollEvents: Int16 {
        switch kind {
        case .eventFD: return Int16(POLLIN)
        case .psi, .memoryEvents: return Int16(POLLPRI)
        case .memAvailable: return 0
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

    private static func arm(_ source: Source) throws(CgroupError) -> PressureWatch {
        switch source {
        case .psi(let path, let kind, let stall, let window, let level):
            return try armPSI(path: path, kind: kind, stall: stall, window: window, level: level)
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
                source: .pressureLevel(group: group), level: level == .normal ? .low : level, armedSource: source)
        case .usageThreshold(let group, let bytes):
            let fd = try registerEventFD(group: group, file: "memory.usage_in_bytes", arguments: "\(bytes)")
            return PressureWatch(
                kind: .eventFD(controlFile: group + "/memory.usage_in_bytes"), fd: fd,
                source: .usageThreshold(group: group, bytes: bytes), level: .normal, armedSource: source)
        case .oomControl(let group):
            let fd = try registerEventFD(group: group, file: "memory.oom_control", arguments: nil)
            return PressureWatch(
                kind: .eventFD(controlFile: group + "/memory.oom_control"), fd: fd, source: .oomControl(group: group),
                level: .critical, armedSource: source)
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
                level: .critical, armedSource: source)
        case .memAvailable(let warningBelow, let criticalBelow, let meminfoPath, let fastest, let slowest):
            _ = try HostMemory.read(path: meminfoPath)
            return PressureWatch(
                kind: .memAvailable(
                    meminfoPath: meminfoPath, warningBelow: warningBelow, criticalBelow: criticalBelow,
                    fastest: fastest, slowest: slowest),
                fd: -1, source: .memAvailable, level: .normal, armedSource: source)
        }
    }

    /// Opens `path` and writes a PSI trigger; on EINVAL widens the window to the next multiple of 2 s.
    private static func armPSI(
        path: String, kind: Source.StallKind, stall: Duration, window: Duration, level: PressureEvent.Level
    ) throws(CgroupError) -> PressureWatch {
        let fd = try open(path, O_RDWR | O_NONBLOCK, "open the pressure file")
        var attempts = [(stall, window)]
        let twoSeconds = Duration.seconds(2)
        let widened = Swift.max(twoSeconds, twoSeconds * Int((window / twoSeconds).rounded(.up)))
        if widened != window { attempts.append((stall * (widened / window), widened)) }
        var lastError = Errno.invalidArgument
        for (attemptStall, attemptWindow) in attempts {
            let trigger = "\(kind.rawValue) \(microseconds(attemptStall)) \(microseconds(attemptWindow))"
            // The kernel reads the trigger as a C string: the terminating NUL is part of the write.
            var bytes = Array(trigger.utf8)
            bytes.append(0)
            switch bytes.withUnsafeBytes({ Syscalls.write(fd, $0) }) {
            case .success:
                return PressureWatch(
                    kind: .psi, fd: fd, source: .psi(path: path), level: level,
                    armedSource: .psi(path: path, kind: kind, stall: attemptStall, window: attemptWindow, level: level))
            case .failure(let error):
                lastError = error
                if error != .invalidArgument { break }
            }
        }
        Syscalls.close(fd)
        if lastError == .invalidArgument {
            throw CgroupError(
                code: .io,
                message: "The kernel refused the PSI trigger \"\(kind.rawValue) \(microseconds(stall)) "
                    + "\(microseconds(window))\" on \"\(path)\", also with a 2 s window; the stall must be shorter "
                    + "than the window and the window between 500 ms and 10 s.",
                cause: lastError.description
            )
        }
        throw CgroupError.from(lastError, "write a PSI trigger to", path: path)
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
