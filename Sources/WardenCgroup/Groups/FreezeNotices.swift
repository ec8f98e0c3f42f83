import Synchronization
import WardenPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The kernel's notices that a group's state changed, where the freezer gives them: cgroup v2
/// notifies `cgroup.events` at each change of its `frozen` (and `populated`) key, a group frozen
/// or thawed behind appwarden's back included. One thread waits on the watched groups'
/// `cgroup.events` with epoll and hands the name of each group noticed to the handler `start`
/// was given, after reading the file again (which arms it for the next change). The handler reads
/// the state itself, so that a notice that comes late, behind a change made since, is weighed
/// against what is true now.
///
/// Nothing runs while no group changes, where looking at each group costs a read per group per
/// look. `watch` and `unwatch` may be called from any thread, before `start` or after it.
public final class FreezeNotices: Sendable {
    private struct Watched {
        var name: String
        var fd: Int32
    }

    private struct State {
        var watched: [UInt64: Watched] = [:]
        var keys: [String: UInt64] = [:]
        var nextKey: UInt64 = 1
        var started = false
        var stopped = false
    }

    private let poll: EventPoll
    private let state = Mutex(State())

    /// Makes the epoll instance the thread will wait on.
    public init() throws(CgroupError) {
        poll = try EventPoll()
    }

    /// Starts the thread, which calls `noticed` with a group's name, on the thread, after each
    /// change of the group's `cgroup.events`.
    public func start(_ noticed: @escaping @Sendable (_ group: String) -> Void) throws(CgroupError) {
        let starts = state.withLock { state in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        guard starts else { return }
        do {
            try DetachedThread.start(name: "appwarden-freezer") { [self] in run(noticed) }
        } catch {
            // No thread: `stop` closes the watches itself.
            state.withLock { $0.started = false }
            stop()
            throw CgroupError(
                code: .io, message: "Could not start the thread that waits for groups to be frozen or thawed.",
                cause: error.description)
        }
    }

    /// Watches `group`'s `cgroup.events` from now on, in place of a watch of a group of the same
    /// name. A group without a cgroup2 directory, or one that vanished, is not watched.
    public func watch(_ group: AppGroup) {
        guard let directory = group.unifiedPath,
            case .success(let fd) = Syscalls.open(directory + "/cgroup.events", O_RDONLY)
        else { return }
        // A notice says the file changed since it was last read.
        guard Self.reread(fd) else {
            Syscalls.close(fd)
            return
        }
        state.withLock { state in
            if let previous = state.keys[group.name] { forget(previous, in: &state) }
            let key = state.nextKey
            guard !state.stopped, (try? poll.add(fd, events: Int16(POLLPRI), key: key)) != nil else {
                Syscalls.close(fd)
                return
            }
            state.nextKey += 1
            state.watched[key] = Watched(name: group.name, fd: fd)
            state.keys[group.name] = key
        }
    }

    /// Stops watching the group named `name`.
    public func unwatch(_ name: String) {
        state.withLock { state in
            if let key = state.keys[name] { forget(key, in: &state) }
        }
    }

    /// Stops the thread and closes every watch; `watch` does nothing from now on.
    public func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if state.started {
                poll.wake()
            } else {
                for key in Array(state.watched.keys) { forget(key, in: &state) }
            }
        }
    }

    /// The names of the groups watched, for tests.
    public var watchedGroups: [String] {
        state.withLock { $0.keys.keys.sorted() }
    }

    deinit {
        state.withLock { state in
            for watched in state.watched.values { Syscalls.close(watched.fd) }
        }
    }

    private func run(_ noticed: @Sendable (String) -> Void) {
        while true {
            // No timeout: the thread wakes only when a group changes or `stop` asks it to end.
            guard let ready = try? poll.wait() else { break }
            var names: [String] = []
            let stopped = state.withLock { state in
                guard !state.stopped else { return true }
                for readiness in ready where readiness.key != EventPoll.wakeKey {
                    guard let watched = state.watched[readiness.key] else { continue }
                    if Self.reread(watched.fd) {
                        names.append(watched.name)
                    } else {
                        forget(readiness.key, in: &state)  // The group was removed.
                    }
                }
                return false
            }
            if stopped { break }
            for name in names { noticed(name) }
        }
        state.withLock { state in
            state.stopped = true
            for key in Array(state.watched.keys) { forget(key, in: &state) }
        }
    }

    private func forget(_ key: UInt64, in state: inout State) {
        guard let watched = state.watched.removeValue(forKey: key) else { return }
        if state.keys[watched.name] == key { state.keys[watched.name] = nil }
        poll.remove(watched.fd)
        Syscalls.close(watched.fd)
    }

    /// Reads `cgroup.events` from its start, which arms its descriptor for the next change;
    /// false once the group is gone.
    private static func reread(_ fd: Int32) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 1) { buffer in
            if case .success = Syscalls.pread(fd, into: buffer, at: 0) { return true }
            return false
        }
    }
}
