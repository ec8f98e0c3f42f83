import Testing

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the real-kernel tests need from this host.
enum SpawnTestHost {
    /// The v1 memory hierarchy the tests create groups in.
    static let memoryRoot = "/sys/fs/cgroup/memory"
    /// The cgroup2 mount the tests create leaves in.
    static let unifiedRoot = "/sys/fs/cgroup/unified"

    /// Whether the tests run as root on a host with a writable v1 memory hierarchy.
    static var hasV1Memory: Bool {
        getuid() == 0 && access(memoryRoot + "/cgroup.procs", W_OK) == 0
    }

    /// Whether the host has a cgroup2 mount the tests can create leaves in.
    static var hasUnified: Bool {
        getuid() == 0 && access(unifiedRoot + "/cgroup.procs", W_OK) == 0
    }

    /// Whether the ballast workload was found.
    static var hasBallast: Bool { ballastPath != nil }

    /// The ballast executable: `APPWARDEN_BALLAST`, or next to the test bundle, or in a build folder.
    static let ballastPath: String? = {
        if let override = getenv("APPWARDEN_BALLAST") {
            let path = String(cString: override)
            return access(path, X_OK) == 0 ? path : nil
        }
        var candidates: [String] = []
        if case .success(let bundle) = Syscalls.readLink("/proc/self/exe") {
            candidates.append(directory(of: bundle) + "/ballast")
            candidates.append(directory(of: directory(of: bundle)) + "/ballast")
        }
        if let argument = CommandLine.arguments.first {
            candidates.append(directory(of: argument) + "/ballast")
        }
        let root = directory(of: directory(of: directory(of: #filePath)))
        if case .success(let names) = Syscalls.listDirectory(root) {
            for name in names.sorted() where name.hasPrefix(".build") {
                candidates.append("\(root)/\(name)/debug/ballast")
            }
        }
        return candidates.first { access($0, X_OK) == 0 }
    }()

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A pair of groups (v1 memory, cgroup2 leaf) made for one test and removed after it, with every
/// process in them killed first.
struct ScratchGroup {
    /// The group's name: `appwarden-test-PID-TAG-RANDOM`.
    let name: String
    let memoryPath: String?
    let unifiedPath: String?

    /// The group as the spawner sees it.
    var appGroup: AppGroup {
        AppGroup(
            name: name,
            unifiedPath: unifiedPath,
            memoryPath: memoryPath,
            v1ProcsFiles: memoryPath.map { [$0 + "/cgroup.procs"] } ?? []
        )
    }

    /// Runs `body` with fresh groups and removes them afterwards, even when `body` throws.
    static func with<T>(
        _ tag: String,
        memory: Bool = true,
        unified: Bool = true,
        memoryLimitBytes: Int? = nil,
        _ body: (ScratchGroup) async throws -> T
    ) async throws -> T {
        let name = "appwarden-test-\(getpid())-\(tag)-\(UInt32.random(in: 0...UInt32.max))"
        let memoryPath = memory ? SpawnTestHost.memoryRoot + "/" + name : nil
        let unifiedPath = unified ? SpawnTestHost.unifiedRoot + "/" + name : nil
        let group = ScratchGroup(name: name, memoryPath: memoryPath, unifiedPath: unifiedPath)
        defer { group.remove() }
        for path in [memoryPath, unifiedPath].compactMap({ $0 }) {
            try Syscalls.mkdir(path).get()
        }
        if let memoryPath, let memoryLimitBytes {
            try Syscalls.writeText("\(memoryLimitBytes)", to: memoryPath + "/memory.limit_in_bytes").get()
        }
        return try await body(group)
    }

    /// The pids listed in the group's `cgroup.procs` under `path`.
    static func pids(in path: String) -> [Int32] {
        guard case .success(let text) = Syscalls.readText(path + "/cgroup.procs") else { return [] }
        return text.split(separator: "\n").compactMap { Int32($0) }
    }

    /// Kills everything in both groups, waits up to two seconds for them to empty, removes them.
    func remove() {
        for path in [memoryPath, unifiedPath].compactMap({ $0 }) where Syscalls.isDirectory(path) {
            for _ in 0..<200 {
                let pids = Self.pids(in: path)
                if pids.isEmpty { break }
                for pid in pids { _ = Syscalls.kill(pid, SIGKILL) }
                usleep(10_000)
            }
            _ = Syscalls.rmdir(path)
        }
    }
}

/// A spawned child that is killed and reaped when the test ends, even on failure.
final class ChildGuard {
    let process: SpawnedProcess
    private var reaped = false

    init(_ process: SpawnedProcess) {
        self.process = process
    }

    /// Waits for the child to end and reaps it.
    func waitAndReap() throws -> SpawnedProcess.Termination {
        let termination = try process.waitAndReap()
        reaped = true
        return termination
    }

    deinit {
        if !reaped {
            try? process.send(signal: SIGKILL)
            _ = try? process.waitAndReap()
        }
        process.close()
    }
}

/// A fresh scratch directory under /tmp, removed with everything in it by `remove()`.
struct ScratchDirectory {
    let path: String

    init(_ tag: String) {
        var template = Array("/tmp/appwarden-test-\(tag)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = created.map { String(cString: $0) } ?? "/tmp/appwarden-test-\(tag)-\(getpid())"
        if created == nil { _ = Syscalls.mkdir(path) }
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        if Syscalls.isDirectory(path), case .success(let names) = Syscalls.listDirectory(path) {
            for name in names { removeTree(path + "/" + name) }
            _ = Syscalls.rmdir(path)
        } else {
            unlink(path)
        }
    }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Whether the file at `path` contains `text`.
func fileContains(_ path: String, _ text: String) -> Bool {
    guard case .success(let contents) = Syscalls.readText(path) else { return false }
    return contents.contains(text)
}
