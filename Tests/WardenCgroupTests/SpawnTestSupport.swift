import Testing
import WardenTesting

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A pair of groups (v1 memory, cgroup2 leaf) made for one test and removed after it, with every
/// process in them killed first.
struct ScratchGroup {
    /// The group's name: `appwarden-test-PID-N-TAG`.
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
        let name = TestCgroupName.unique(tag)
        let memoryPath = try memory ? #require(TestHost.v1MemoryMountPoint) + "/" + name : nil
        let unifiedPath = try unified ? #require(TestHost.unifiedMountPoint) + "/" + name : nil
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

/// Whether the file at `path` contains `text`.
func fileContains(_ path: String, _ text: String) -> Bool {
    guard case .success(let contents) = Syscalls.readText(path) else { return false }
    return contents.contains(text)
}
