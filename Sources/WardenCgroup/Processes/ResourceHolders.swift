#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Finds which of an app's processes hold a shared resource path: have it open or locked.
///
/// Rule 7 of the lifecycle terminates, instead of suspending, an app that holds a shared
/// resource. Open files come from `/proc/PID/fd/*` (the link's text, or the same device and
/// inode, so renamed paths and bind mounts still match; for a directory, anything open beneath
/// it); locks come from `/proc/locks`, matched by device and inode. Processes that end during
/// the scan are skipped. `procRoot` points the reader at a fixture tree in tests.
public struct ResourceHolders: Sendable {
    /// One way a process holds the resource.
    public struct Hold: Sendable, Hashable, CustomStringConvertible {
        /// How the resource is held.
        public enum Kind: Sendable, Hashable {
            /// The process has the file open on this descriptor; `target` is what the descriptor names.
            case open(descriptor: Int32, target: String)
            /// The process holds a lock on the file.
            case lock(LockEntry.LockType, LockEntry.Access)
        }

        /// The holding process.
        public var pid: Int32
        /// How it holds the resource.
        public var kind: Kind

        /// Makes a hold.
        public init(pid: Int32, kind: Kind) {
            self.pid = pid
            self.kind = kind
        }

        public var description: String {
            switch kind {
            case .open(let descriptor, let target): return "process \(pid) has \"\(target)\" open on fd \(descriptor)"
            case .lock(let type, let access):
                return "process \(pid) holds a \(access.rawValue) \(type.rawValue) lock"
            }
        }
    }

    /// The root of the proc file system (`/proc`, or a fixture tree).
    public var procRoot: String

    /// Makes a finder that reads `procRoot`.
    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// Every way the processes `pids` hold `path`, in pid order, opens before locks.
    ///
    /// A path that does not exist is held by nobody.
    ///
    /// - Throws: `CgroupError` when `/proc` cannot be read (permission) or `/proc/locks` is malformed.
    public func holds(of path: String, among pids: [Int32]) throws(CgroupError) -> [Hold] {
        guard case .success(let target) = Syscalls.identity(path) else { return [] }
        let directoryPrefix = path.hasSuffix("/") ? path : path + "/"
        var holds: [Hold] = []
        for pid in Set(pids).sorted() {
            let fdDirectory = "\(procRoot)/\(pid)/fd"
            let names: [String]
            switch Syscalls.listDirectory(fdDirectory) {
            case .success(let found): names = found
            case .failure(let error) where error.meansVanished: continue
            case .failure(let error): throw CgroupError.from(error, "list the open files in", path: fdDirectory)
            }
            for name in names.sorted(by: { (Int32($0) ?? 0) < (Int32($1) ?? 0) }) {
                guard let descriptor = Int32(name) else { continue }
                let link = "\(fdDirectory)/\(name)"
                guard case .success(let linkTarget) = Syscalls.readLink(link) else { continue }
                var matches = linkTarget == path || (target.isDirectory && linkTarget.hasPrefix(directoryPrefix))
                if !matches, linkTarget.hasPrefix("/"), case .success(let opened) = Syscalls.identity(link) {
                    matches = opened.device == target.device && opened.inode == target.inode
                }
                if matches { holds.append(Hold(pid: pid, kind: .open(descriptor: descriptor, target: linkTarget))) }
            }
        }
        let locksPath = procRoot + "/locks"
        let locks: [LockEntry]
        switch Syscalls.readText(locksPath) {
        case .success(let text): locks = try Self.parseLocks(text, source: locksPath)
        case .failure(let error) where error.meansVanished: locks = []
        case .failure(let error): throw CgroupError.from(error, "read the lock table", path: locksPath)
        }
        let wanted = Set(pids)
        for lock in locks where !lock.isWaiting && wanted.contains(lock.pid) {
            guard lock.deviceMajor == target.deviceMajor, lock.deviceMinor == target.deviceMinor,
                lock.inode == target.inode
            else { continue }
            let hold = Hold(pid: lock.pid, kind: .lock(lock.type, lock.access))
            if !holds.contains(hold) { holds.append(hold) }
        }
        return holds
    }

    /// Whether any of `pids` holds any of `paths`; the first hold found, or nil.
    public func firstHold(ofAny paths: [String], among pids: [Int32]) throws(CgroupError) -> Hold? {
        for path in paths {
            if let hold = try holds(of: path, among: pids).first { return hold }
        }
        return nil
    }
}
