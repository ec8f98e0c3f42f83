#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs work on an operating-system thread of its own, for the blocking reads and waits that
/// must not hold one of Swift's cooperative threads.
public enum DetachedThread {
    /// Why a thread could not be started: the `errno` value `pthread_create` returned.
    public struct StartFailure: Error, CustomStringConvertible, Sendable {
        public let code: Int32
        public var description: String { "could not start a thread: \(String(cString: strerror(code)))" }
    }

    /// Starts `work` on a new detached thread named `name` (the kernel keeps its first 15 bytes).
    public static func start(name: String, _ work: @escaping @Sendable () -> Void) throws(StartFailure) {
        let status = create(Work(name: name, body: work))
        guard status == 0 else { throw StartFailure(code: status) }
    }

    /// Starts the thread that runs `work`; the `errno` value on failure, 0 on success.
    private static func create(_ work: Work) -> Int32 {
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, runDetachedWork, context)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            return status
        }
        pthread_detach(thread)
        return 0
    }

    /// The new thread's entry: takes back the work `create` handed over, names itself, runs it.
    fileprivate static func run(_ context: UnsafeMutableRawPointer) {
        let work = Unmanaged<Work>.fromOpaque(context).takeRetainedValue()
        nameCurrentThread(work.name)
        work.body()
    }

    /// Names the calling thread as `ps -L` and `top -H` show it, through
    /// /proc/thread-self/comm (the kernel keeps the first 15 bytes); a thread stays unnamed where
    /// /proc is not mounted.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

private func runDetachedWork(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    DetachedThread.run(context!)
    return nil
}
