#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An epoll instance with a wake-up of its own, for a thread that waits on many descriptors.
///
/// Each descriptor is registered once, with a key of the caller's choosing, and a wait costs what
/// is ready, not every descriptor registered (an OOM source or a pidfd per app, a thousand apps or
/// more). `add`, `remove` and `wake` may be called from any thread (`epoll_ctl(2)` is); `wait`
/// belongs to one thread. The descriptors stay the caller's to close.
public final class EventPoll: Sendable {
    /// A descriptor that is ready: its key and what it is ready for (the poll(2) bits).
    public struct Readiness: Sendable, Equatable {
        public var key: UInt64
        public var events: Int16
    }

    /// The key a `wake()` comes back with; not a key for a descriptor.
    public static let wakeKey = UInt64.max

    private let epfd: Int32
    private let wakeFD: Int32

    /// Creates the epoll instance (`epoll_create1(2)`) and its wake eventfd (`eventfd(2)`).
    public init() throws(CgroupError) {
        let epfd: Int32
        switch Syscalls.epollCreate() {
        case .success(let fd): epfd = fd
        case .failure(let error):
            throw CgroupError(code: .io, message: "Could not create an epoll instance.", cause: error.description)
        }
        let wakeFD: Int32
        switch Syscalls.eventFD() {
        case .success(let fd): wakeFD = fd
        case .failure(let error):
            Syscalls.close(epfd)
            throw CgroupError(
                code: .io, message: "Could not create an eventfd to wake a wait.", cause: error.description)
        }
        if case .failure(let error) = Syscalls.epollAdd(epfd, fd: wakeFD, events: Int16(POLLIN), key: Self.wakeKey) {
            Syscalls.close(wakeFD)
            Syscalls.close(epfd)
            throw CgroupError(
                code: .io, message: "Could not watch the wake eventfd with epoll.", cause: error.description)
        }
        self.epfd = epfd
        self.wakeFD = wakeFD
    }

    /// Waits for `events` (poll(2) bits: `POLLIN`, `POLLPRI`) on `descriptor`, reported with `key`
    /// (`epoll_ctl(2)`, `EPOLL_CTL_ADD`). Level-triggered: a descriptor ready already is reported
    /// by the next wait.
    public func add(_ descriptor: Int32, events: Int16, key: UInt64) throws(CgroupError) {
        precondition(key != Self.wakeKey, "The wake key is not a descriptor's key.")
        if case .failure(let error) = Syscalls.epollAdd(epfd, fd: descriptor, events: events, key: key) {
            throw CgroupError(
                code: .io, message: "Could not watch descriptor \(descriptor) with epoll.", cause: error.description)
        }
    }

    /// Stops waiting on `descriptor` (`EPOLL_CTL_DEL`); call it before closing the descriptor.
    public func remove(_ descriptor: Int32) {
        Syscalls.epollRemove(epfd, fd: descriptor)
    }

    /// Makes the current or next `wait` return with `wakeKey` among what is ready.
    public func wake() {
        _ = Syscalls.signalEventFD(wakeFD)
    }

    /// Waits until a descriptor is ready, `wake()` is called or `timeoutMilliseconds` pass (-1:
    /// no timeout), repeating on `EINTR` (`epoll_wait(2)`). Returns what is ready, at most 64 at a
    /// time (the rest stays ready for the next wait), with a wake drained and reported once as
    /// `wakeKey`; empty on timeout.
    public func wait(timeoutMilliseconds: Int32 = -1) throws(CgroupError) -> [Readiness] {
        switch Syscalls.epollWait(epfd, timeoutMilliseconds: timeoutMilliseconds) {
        case .failure(let error):
            throw CgroupError(code: .io, message: "Waiting with epoll failed.", cause: error.description)
        case .success(let ready):
            return ready.map { ready in
                if ready.key == Self.wakeKey { _ = Syscalls.drainEventFD(wakeFD) }
                return Readiness(key: ready.key, events: ready.events)
            }
        }
    }

    deinit {
        Syscalls.close(wakeFD)
        Syscalls.close(epfd)
    }
}
