import Foundation
import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension DaemonBenchmarks {
    /// Notes when each watched process dies, on a thread of its own. With a usage file, it first
    /// notes when usage first reached each of the given marks, reading it and each process's
    /// `/proc/PID/stat` every 100 µs (a process that is a zombie or gone is dead); once every
    /// mark is reached (at once without marks), it sleeps in `poll(2)` on the processes' pidfds,
    /// so that it takes no CPU from the kill it times.
    final class DeathWatch: @unchecked Sendable {
        private let lock = NSLock()
        private var dead: [String: ContinuousClock.Instant] = [:]
        private var reached: [Int64: ContinuousClock.Instant] = [:]
        private var stopped = false

        /// Starts watching `pids`, each named by its app, and `usageFile` against `marks`.
        init(_ pids: [Int32: String], usageFile: String? = nil, marks: [Int64] = []) {
            let thread = Thread { [self] in watch(pids, usageFile: usageFile, marks: marks) }
            thread.name = "appwarden-death-watch"
            thread.start()
        }

        /// When each app's first watched process was found dead.
        func deaths() -> [String: ContinuousClock.Instant] {
            lock.lock()
            defer { lock.unlock() }
            return dead
        }

        /// When usage first reached each mark.
        func marksReached() -> [Int64: ContinuousClock.Instant] {
            lock.lock()
            defer { lock.unlock() }
            return reached
        }

        /// Ends the watch.
        func stop() {
            lock.lock()
            stopped = true
            lock.unlock()
        }

        private func watch(_ pids: [Int32: String], usageFile: String?, marks: [Int64]) {
            var remaining = pids
            var pending = marks
            let usageFD = usageFile.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1
            defer { if usageFD >= 0 { close(usageFD) } }
            var buffer = [UInt8](repeating: 0, count: 32)
            // Until every mark is reached, usage and the processes are read every 100 µs: the
            // crossing's time needs it.
            while !pending.isEmpty {
                if isStopped { return }
                if usageFD >= 0 {
                    let count = buffer.withUnsafeMutableBytes { pread(usageFD, $0.baseAddress, $0.count, 0) }
                    var usage: Int64 = 0
                    for byte in buffer.prefix(max(0, count)) {
                        guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { break }
                        usage = usage * 10 + Int64(byte - UInt8(ascii: "0"))
                    }
                    let now = ContinuousClock.now
                    for mark in pending where usage >= mark {
                        lock.lock()
                        reached[mark] = now
                        lock.unlock()
                    }
                    pending.removeAll { usage >= $0 }
                }
                for (pid, name) in remaining where Self.isDead(pid) {
                    noteDeath(of: name, at: ContinuousClock.now)
                    remaining[pid] = nil
                }
                usleep(100)
            }
            waitForDeaths(remaining)
        }

        /// Sleeps in `poll(2)` on a pidfd of each process until each has ended (a pidfd turns
        /// readable when its process ends), so that the watch takes no CPU while the kill it
        /// times runs. A process whose pidfd cannot be opened is gone.
        private func waitForDeaths(_ pids: [Int32: String]) {
            var watched: [(fd: Int32, name: String)] = []
            defer { for entry in watched { close(entry.fd) } }
            for (pid, name) in pids {
                guard let fd = (try? SpawnedProcess.pidfd(of: pid)) ?? nil else {
                    noteDeath(of: name, at: ContinuousClock.now)
                    continue
                }
                watched.append((fd, name))
            }
            while !watched.isEmpty && !isStopped {
                var descriptors = watched.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
                guard poll(&descriptors, nfds_t(descriptors.count), 50) > 0 else { continue }
                let now = ContinuousClock.now
                for index in descriptors.indices.reversed() where descriptors[index].revents != 0 {
                    noteDeath(of: watched[index].name, at: now)
                    close(watched[index].fd)
                    watched.remove(at: index)
                }
            }
        }

        private var isStopped: Bool {
            lock.lock()
            defer { lock.unlock() }
            return stopped
        }

        private func noteDeath(of name: String, at time: ContinuousClock.Instant) {
            lock.lock()
            if dead[name] == nil { dead[name] = time }
            lock.unlock()
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
