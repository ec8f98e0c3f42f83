import Testing

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The cgroup tests' fixtures, and helpers that clean up after them.
enum CgroupTestSupport {
    /// The `Tests/Fixtures` directory.
    static let fixtures: String = {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(2)
        return components.joined(separator: "/") + "/Fixtures"
    }()

    /// The text of fixture file `path` (relative to `Tests/Fixtures`).
    static func fixture(_ path: String) throws -> String {
        try Syscalls.readText(fixtures + "/" + path).get()
    }

    /// Runs `body` with `driver` and removes every group and process it made, even when `body` throws.
    static func withCleanup<D: CgroupDriver>(
        _ driver: D, groups names: [String], _ body: (D, [AppGroup]) async throws -> Void
    ) async throws {
        do {
            var groups: [AppGroup] = []
            for name in names { groups.append(try await driver.createGroup(named: name)) }
            try await body(driver, groups)
        } catch {
            await removeEverything(driver, names: names)
            throw error
        }
        await removeEverything(driver, names: names)
    }

    /// Kills and removes the groups `names` and appwarden's root, directly through the file system,
    /// so that it works whatever state a failed test left behind.
    static func removeEverything(_ driver: some CgroupDriver, names: [String]) async {
        let groups = names.map { driver.group(named: $0) }
        for group in groups {
            for directory in group.allPaths where Syscalls.isDirectory(directory) {
                // cgroup.kill first, so that a process forking in a loop cannot outrun the kills.
                _ = Syscalls.writeText("1", to: directory + "/cgroup.kill")
                _ = Syscalls.writeText("THAWED", to: directory + "/freezer.state")
                _ = Syscalls.writeText("0", to: directory + "/cgroup.freeze")
                for _ in 0..<300 {
                    guard case .success(let text) = Syscalls.readText(directory + "/cgroup.procs") else { break }
                    let pids = text.split(separator: "\n").compactMap { Int32($0) }
                    if pids.isEmpty { break }
                    for pid in pids { _ = Syscalls.kill(pid, SIGKILL) }
                    _ = Syscalls.writeText("THAWED", to: directory + "/freezer.state")
                    usleep(10_000)
                }
                _ = Syscalls.rmdir(directory)
            }
        }
        for group in groups {
            for directory in group.allPaths {
                let root = String(directory[..<directory.lastIndex(of: "/")!])
                if Syscalls.isDirectory(root) { _ = Syscalls.rmdir(root) }
            }
        }
    }

    /// The CPU time (user + system, in clock ticks) process `pid` has used, from `/proc/PID/stat`.
    static func cpuTicks(of pid: Int32) throws -> UInt64 {
        let text = try Syscalls.readText("/proc/\(pid)/stat").get()
        guard let close = text.lastIndex(of: ")") else { throw TestFailure("no ')' in /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else {
            throw TestFailure("/proc/\(pid)/stat has too few fields")
        }
        return user + system
    }

}

/// A failure inside test support, with a sentence.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A `/bin/sh -c SCRIPT` child started with `posix_spawn`; `stop()` (or deinit) kills and reaps it.
final class TestProcess {
    let pid: Int32
    private var reaped = false

    /// Starts `/bin/sh -c script` in a process group of its own, so `stop()` also kills the
    /// children the script forks (a `sleep` that would otherwise keep its cgroup busy).
    init(_ script: String) throws {
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", script]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let result = posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, environ)
        guard result == 0 else { throw TestFailure("posix_spawn of /bin/sh failed with \(result)") }
        self.pid = pid
    }

    /// A process that spins on the CPU forever.
    static func busyLoop() throws -> TestProcess {
        try TestProcess("while :; do :; done")
    }

    /// Whether the child has exited, reaping it if so.
    func hasExited() -> Bool {
        if reaped { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
        return reaped
    }

    /// Kills and reaps the child, thawing its v1 freezer group first (frozen v1 tasks cannot die).
    func stop() {
        if reaped { return }
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
        if case .success(let membership) = Syscalls.readText("/proc/\(pid)/cgroup") {
            for line in membership.split(separator: "\n") where line.contains(":freezer:") {
                let path = line.split(separator: ":", maxSplits: 2)[2]
                _ = Syscalls.writeText("THAWED", to: "/sys/fs/cgroup/freezer\(path)/freezer.state")
            }
        }
        for _ in 0..<500 {
            if hasExited() { return }
            usleep(2_000)
        }
    }

    deinit { stop() }
}
