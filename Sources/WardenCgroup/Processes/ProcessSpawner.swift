import CWardenSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Starts app processes inside their cgroups before they run any code of their own.
///
/// Writing a pid to `cgroup.procs` after `posix_spawn` lets the child run, and allocate, outside
/// its group for a while; on cgroup v1 those first pages stay charged to the wrong group. The
/// spawner instead calls `warden_spawn` (C): `clone3(CLONE_INTO_CGROUP | CLONE_PIDFD)` into the
/// cgroup2 leaf, and the child writes "0" to each v1 `cgroup.procs` before `execve`. Where the
/// kernel lacks `clone3` or `CLONE_INTO_CGROUP`, the child is forked and joins every group,
/// the cgroup2 leaf included, itself before `execve` — equally race-free without a helper binary.
public struct ProcessSpawner: Sendable {
    /// Makes a spawner.
    public init() {}

    /// Starts the process `request` describes.
    ///
    /// - Throws: `CgroupError` naming what was wrong: a program that is missing or not
    ///   executable, an unknown user, a log file that cannot be opened, a group that cannot be
    ///   joined, or a step in the child that failed (with its errno).
    public func spawn(_ request: SpawnRequest) throws(CgroupError) -> SpawnedProcess {
        let workingDirectory = request.workingDirectory ?? Syscalls.currentDirectory() ?? "/"
        let path = try Self.locateExecutable(
            request.executable, environment: request.environment, workingDirectory: workingDirectory)
        if let adjustment = request.oomScoreAdj, !(-1000...1000).contains(adjustment) {
            throw CgroupError(
                code: .malformed,
                message: "The oom_score_adj \(adjustment) for \"\(request.executable)\" is outside -1000...1000.",
                cause: "value out of range"
            )
        }
        let credentials = try resolve(request.user)

        var descriptors = OpenDescriptors()
        defer { descriptors.closeAll() }
        let stdinFD = try descriptors.open("/dev/null", "open standard input", Syscalls.open("/dev/null", O_RDONLY))
        var unifiedFD: Int32 = -1
        if let unifiedPath = request.group?.unifiedPath {
            unifiedFD = try descriptors.open(unifiedPath, "open the group", Syscalls.openDirectory(unifiedPath))
        }
        let v1Files = request.group?.v1ProcsFiles ?? []
        var v1FDs: [Int32] = []
        for file in v1Files {
            v1FDs.append(try descriptors.open(file, "open", Syscalls.open(file, O_WRONLY)))
        }
        let stdoutFD: Int32
        let stderrFD: Int32
        if let rotation = request.logRotation, let path = request.standardOutputPath,
            request.standardErrorPath == path
        {
            // The relay stays out of the app's groups: it must not count as one of the app's
            // processes (its pids, the watchdog's scan, the group's emptiness after an exit).
            // It ends when the app's last process closes its output, killed group included.
            stdoutFD = try descriptors.startRelay(path: path, rotation: rotation, unifiedFD: -1, v1FDs: [])
            stderrFD = stdoutFD
        } else {
            stdoutFD = try descriptors.openLog(request.standardOutputPath)
            stderrFD =
                request.standardErrorPath == request.standardOutputPath && request.standardErrorPath != nil
                ? stdoutFD : try descriptors.openLog(request.standardErrorPath)
        }

        let argv = CStringArray([request.executable] + request.arguments)
        defer { argv.free() }
        let envp = CStringArray(request.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        defer { envp.free() }
        var groups = credentials?.groups ?? []

        var result = warden_spawn_result()
        let status = path.withCString { pathPointer in
            workingDirectory.withCString { directoryPointer in
                v1FDs.withUnsafeBufferPointer { v1Pointer in
                    groups.withUnsafeMutableBufferPointer { groupsPointer in
                        var cRequest = warden_spawn_request()
                        cRequest.path = pathPointer
                        cRequest.argv = UnsafePointer(argv.pointer)
                        cRequest.envp = UnsafePointer(envp.pointer)
                        cRequest.working_directory = request.workingDirectory == nil ? nil : directoryPointer
                        cRequest.unified_cgroup_fd = unifiedFD
                        cRequest.v1_procs_fds = v1Pointer.baseAddress
                        cRequest.v1_procs_count = v1Pointer.count
                        cRequest.set_oom_score_adj = request.oomScoreAdj == nil ? 0 : 1
                        cRequest.oom_score_adj = Int32(request.oomScoreAdj ?? 0)
                        cRequest.new_session = request.newSession ? 1 : 0
                        cRequest.set_credentials = credentials == nil ? 0 : 1
                        cRequest.uid = credentials?.uid ?? 0
                        cRequest.gid = credentials?.gid ?? 0
                        cRequest.supplementary_groups = UnsafePointer(groupsPointer.baseAddress)
                        cRequest.supplementary_group_count = groupsPointer.count
                        cRequest.stdin_fd = stdinFD
                        cRequest.stdout_fd = stdoutFD
                        cRequest.stderr_fd = stderrFD
                        cRequest.force_fallback = request.method == .forkFallback ? 1 : 0
                        cRequest.report_timeout_ms = request.startTimeout.map { Self.milliseconds($0) } ?? 0
                        return warden_spawn(&cRequest, &result)
                    }
                }
            }
        }
        guard status == 0 else {
            throw failure(result, request: request, path: path, workingDirectory: workingDirectory, v1Files: v1Files)
        }
        let method: SpawnedProcess.CreationMethod
        switch Int(result.method) {
        case Int(WARDEN_SPAWN_METHOD_CLONE3_INTO_CGROUP.rawValue): method = .clone3IntoCgroup
        case Int(WARDEN_SPAWN_METHOD_CLONE3.rawValue): method = .clone3
        default: method = .fork
        }
        return SpawnedProcess(pid: result.pid, pidfd: result.pidfd, method: method)
    }

    private func resolve(_ user: SpawnRequest.User?) throws(CgroupError) -> (uid: uid_t, gid: gid_t, groups: [gid_t])? {
        switch user {
        case nil:
            return nil
        case .ids(let uid, let gid, let groups):
            return (uid, gid, groups)
        case .name(let name):
            switch Syscalls.lookUpUser(name) {
            case .success(let found?):
                return found
            case .success(nil):
                throw CgroupError(
                    code: .notFound,
                    message: "The user \"\(name)\" does not exist on this host; name an existing user or a numeric id.",
                    cause: "getpwnam_r found no entry"
                )
            case .failure(let error):
                throw CgroupError(
                    code: .io,
                    message: "Could not look up the user \"\(name)\".",
                    cause: error.description
                )
            }
        }
    }

    private func failure(
        _ result: warden_spawn_result,
        request: SpawnRequest,
        path: String,
        workingDirectory: String,
        v1Files: [String]
    ) -> CgroupError {
        let error = Errno(rawValue: result.error_number)
        let program = "\"\(path)\""
        switch UInt32(result.failed_stage) {
        case WARDEN_SPAWN_STAGE_JOIN_GROUP.rawValue:
            let index = Int(result.failed_group_index)
            let file =
                index >= 0 && index < v1Files.count
                ? v1Files[index] : (request.group?.unifiedPath ?? "?") + "/cgroup.procs"
            return CgroupError.from(error, "move the new process of \(program) into the group through", path: file)
        case WARDEN_SPAWN_STAGE_OPEN_UNIFIED_PROCS.rawValue:
            return CgroupError.from(error, "open", path: (request.group?.unifiedPath ?? "?") + "/cgroup.procs")
        case WARDEN_SPAWN_STAGE_OOM_SCORE_ADJ.rawValue:
            return OOMScoreAdjuster.writeError(error, value: request.oomScoreAdj ?? 0, path: "/proc/self/oom_score_adj")
        case WARDEN_SPAWN_STAGE_CHDIR.rawValue:
            return CgroupError.from(error, "start \(program) in the working directory", path: workingDirectory)
        case WARDEN_SPAWN_STAGE_SETGROUPS.rawValue, WARDEN_SPAWN_STAGE_SETGID.rawValue,
            WARDEN_SPAWN_STAGE_SETUID.rawValue:
            return CgroupError(
                code: .permissionDenied,
                message: "Could not start \(program) as user \(String(describing: request.user!)); "
                    + "appwarden must run as root to start apps as another user.",
                cause: error.description
            )
        case WARDEN_SPAWN_STAGE_EXEC.rawValue:
            return CgroupError.from(error, "execute the program", path: path)
        case WARDEN_SPAWN_STAGE_REPORT.rawValue where error == .timedOut:
            let limit = request.startTimeout.map { Self.text(milliseconds: Self.milliseconds($0)) } ?? "its time"
            return CgroupError(
                code: .io,
                message:
                    "The new process of \(program) did not reach its program within \(limit) (its group frozen, or the device stalled), so it was killed.",
                cause: error.description
            )
        case WARDEN_SPAWN_STAGE_CLONE.rawValue:
            guard let unifiedPath = request.group?.unifiedPath else {
                return CgroupError(
                    code: .io, message: "Could not create a process for \(program).", cause: error.description)
            }
            let hint =
                error == .busy
                ? " The group has controllers enabled for children, so it cannot hold processes itself; "
                    + "start apps in a leaf group." : ""
            return CgroupError(
                code: error == .accessDenied || error == .notPermitted ? .permissionDenied : .io,
                message: "Could not create a process for \(program) inside the group \"\(unifiedPath)\".\(hint)",
                cause: error.description
            )
        default:
            let stage = Self.stageNames[UInt32(result.failed_stage)] ?? "stage \(result.failed_stage)"
            return CgroupError(
                code: .io,
                message: "Could not start \(program): \(stage) failed.",
                cause: error.description
            )
        }
    }

    /// A timeout in whole milliseconds for C, at least 1 and at most `Int32.max`.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int32.max) / 1000 else { return Int32.max }
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, total))
    }

    /// `10s`, or `300ms` where the time is not whole seconds.
    static func text(milliseconds: Int32) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }

    private static let stageNames: [UInt32: String] = [
        WARDEN_SPAWN_STAGE_PIPE.rawValue: "creating the error pipe",
        WARDEN_SPAWN_STAGE_SETSID.rawValue: "starting a new session",
        WARDEN_SPAWN_STAGE_STDIO.rawValue: "connecting standard input, output and error",
        WARDEN_SPAWN_STAGE_SIGNALS.rawValue: "resetting the signal mask",
        WARDEN_SPAWN_STAGE_REPORT.rawValue: "reading the child's report",
    ]
}

/// Descriptors the parent opens for one spawn and closes when it returns.
private struct OpenDescriptors {
    var fds: [Int32] = []

    mutating func open(_ path: String, _ action: String, _ result: Result<Int32, Errno>) throws(CgroupError) -> Int32 {
        switch result {
        case .success(let fd):
            fds.append(fd)
            return fd
        case .failure(let error):
            throw CgroupError.from(error, action, path: path)
        }
    }

    mutating func openLog(_ path: String?) throws(CgroupError) -> Int32 {
        guard let path else { return try open("/dev/null", "open", Syscalls.open("/dev/null", O_WRONLY)) }
        return try open(path, "open the log file", Syscalls.openForAppending(path))
    }

    /// Starts a log relay for `path`, joining the groups given (none for apps); returns the pipe's write end.
    mutating func startRelay(
        path: String, rotation: LogRotation, unifiedFD: Int32, v1FDs: [Int32]
    ) throws(CgroupError) -> Int32 {
        var writeFD: Int32 = -1
        var errorNumber: Int32 = 0
        let program = LogRelayProgram.path
        let status = path.withCString { pathPointer in
            v1FDs.withUnsafeBufferPointer { v1Pointer in
                Self.withOptionalCString(program) { programPointer in
                    var request = warden_log_relay_request()
                    request.path = pathPointer
                    request.max_size = rotation.maxSize
                    request.keep = Int32(clamping: rotation.keep)
                    request.unified_cgroup_fd = unifiedFD
                    request.v1_procs_fds = v1Pointer.baseAddress
                    request.v1_procs_count = v1Pointer.count
                    request.executable = programPointer
                    return warden_log_relay_start(&request, &writeFD, &errorNumber)
                }
            }
        }
        guard status == 0 else {
            throw CgroupError.from(Errno(rawValue: errorNumber), "start the log relay for", path: path)
        }
        fds.append(writeFD)
        return writeFD
    }

    func closeAll() {
        for fd in fds { Syscalls.close(fd) }
    }

    /// Calls `body` with `text` as a C string, or with nil.
    private static func withOptionalCString<Result>(
        _ text: String?, _ body: (UnsafePointer<CChar>?) -> Result
    ) -> Result {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }
}

/// A NULL-terminated array of C strings for `argv` and `envp`, freed explicitly.
private struct CStringArray {
    let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointer = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            pointer[index] = strdup(string)
        }
        pointer[strings.count] = nil
    }

    func free() {
        var index = 0
        while let string = pointer[index] {
            Glibc.free(string)
            index += 1
        }
        pointer.deallocate()
    }
}
