import Testing

@testable import WardenCgroup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("epoll")
struct EventPollTests {
    /// A wait returns the key of the one descriptor that is ready among many, a wake-up as the
    /// wake key (once), and nothing when the timeout passes first.
    @Test func aWaitReturnsWhatIsReadyAWakeAndNothingOnTimeout() throws {
        let poll = try EventPoll()
        var pipes: [(read: Int32, write: Int32)] = []
        defer {
            for pipe in pipes {
                close(pipe.read)
                close(pipe.write)
            }
        }
        for key in 1...50 {
            var fds: [Int32] = [-1, -1]
            #expect(pipe(&fds) == 0)
            pipes.append((fds[0], fds[1]))
            try poll.add(fds[0], events: Int16(POLLIN), key: UInt64(key))
        }
        #expect(try poll.wait(timeoutMilliseconds: 0).isEmpty)

        var byte: UInt8 = 1
        #expect(write(pipes[20].write, &byte, 1) == 1)
        #expect(try poll.wait(timeoutMilliseconds: 1000).map(\.key) == [21])
        #expect(try poll.wait(timeoutMilliseconds: 0).map(\.key) == [21])  // Level-triggered: still unread.

        poll.remove(pipes[20].read)
        #expect(try poll.wait(timeoutMilliseconds: 0).isEmpty)

        poll.wake()
        poll.wake()
        #expect(try poll.wait(timeoutMilliseconds: 1000).map(\.key) == [EventPoll.wakeKey])
        #expect(try poll.wait(timeoutMilliseconds: 0).isEmpty)
    }
}
