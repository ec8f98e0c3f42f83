import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension DaemonBenchmarks {
    /// Notes when each watched process dies: a thread of its own reads `/proc/PID/stat` every
    /// 100 µs, and a process that is a zombie or gone is dead.
    final class DeathWatch: @unchecked Sendable {
        private let lock = NSLock()
        private var dead: [String: ContinuousClock.Instant] = [:]
        private var stopped = false

        /// Starts watching `pids`, each named by its app.
        init(_ pids: [Int32: String]) {
            let thread = Thread { [self] in watch(pids) }
            thread.name = "appwarden-death-watch"
            thread.start()
        }

        /// When each app's first watched process was found dead.
        func deaths() -> [String: ContinuousClock.Instant] {
            lock.lock()
            defer { lock.unlock() }
            return dead
        }

        /// Ends the watch.
        func stop() {
            lock.lock()
            stopped = true
            lock.unlock()
        }

        private func watch(_ pids: [Int32: String]) {
            var remaining = pids
            while !remaining.isEmpty {
                lock.lock()
                let done = stopped
                lock.unlock()
                if done { return }
                for (pid, name) in remaining where Self.isDead(pid) {
                    let now = ContinuousClock.now
                    remaining[pid] = nil
                    lock.lock()
                    if dead[name] == nil { dead[name] = now }
                    lock.unlock()
                }
                usleep(100)
            }
        }

        /// Whether `pid` is gone or a zombie.
        private static func isDead(_ pid: Int32) -> Bool {
            let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return true }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return true }
            let bytes = buffer[0..<count]
            guard let paren = bytes.lastIndex(of: UInt8(ascii: ")")), paren + 2 < count else { return true }
            let state = bytes[paren + 2]
            return state == UInt8(ascii: "Z") || state == UInt8(ascii: "X")
        }
    }
}
