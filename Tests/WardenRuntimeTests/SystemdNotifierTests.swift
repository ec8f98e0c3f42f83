import Foundation
import Testing
import WardenRuntime

#if canImport(Glibc)
    import Glibc
#endif

/// The sd_notify messages, received on a real datagram socket as systemd would receive them.
struct SystemdNotifierTests {
    /// READY, STOPPING, WATCHDOG and STATUS each arrive as one datagram with the documented lines.
    @Test func messagesArriveAsOneDatagramEachOnTheNotifySocket() throws {
        let listener = try NotifySocketListener()
        defer { listener.close() }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.path])
        #expect(notifier.ready(status: "Serving on /run/x.sock\nwith two lines."))
        #expect(notifier.watchdog())
        #expect(notifier.status("Reloaded."))
        #expect(notifier.stopping(status: "Stopping on signal 15."))
        #expect(
            listener.receive()
                == "READY=1\nSTATUS=Serving on /run/x.sock with two lines.\nMAINPID=\(getpid())\n")
        #expect(listener.receive() == "WATCHDOG=1\n")
        #expect(listener.receive() == "STATUS=Reloaded.\n")
        #expect(listener.receive() == "STOPPING=1\nSTATUS=Stopping on signal 15.\n")
    }

    /// A NOTIFY_SOCKET starting with "@" names an abstract socket, as systemd may pass it.
    @Test func anAtSignNamesAnAbstractSocket() throws {
        let name = "@appwarden-notify-test-\(getpid())"
        let listener = try NotifySocketListener(abstractName: name)
        defer { listener.close() }
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]).watchdog())
        #expect(listener.receive() == "WATCHDOG=1\n")
    }

    /// Without NOTIFY_SOCKET nothing is sent; a socket nobody listens on is a failed send, not a crash.
    @Test func withoutAListenerSendsReportFailure() {
        #expect(SystemdNotifier(environment: [:]).socketPath == nil)
        #expect(!SystemdNotifier(environment: [:]).ready(status: "x"))
        let missing = "/tmp/appwarden-notify-missing-\(getpid())"
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": missing]).watchdog())
    }

    /// The watchdog pings at half of WATCHDOG_USEC, and only in the process WATCHDOG_PID names.
    @Test func watchdogIntervalIsHalfOfWatchdogUsecForThisProcessOnly() {
        let own = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], processID: 42)
        #expect(own.watchdogInterval == .seconds(15))
        let unnamed = SystemdNotifier(environment: ["WATCHDOG_USEC": "4000000"], processID: 42)
        #expect(unnamed.watchdogInterval == .seconds(2))
        let other = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"], processID: 42)
        #expect(other.watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
    }
}

/// A bound `SOCK_DGRAM` Unix socket standing in for systemd's notification socket.
final class NotifySocketListener: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let directory: String?

    /// Binds a socket file in a fresh temporary directory, or the abstract `abstractName` ("@…").
    init(abstractName: String? = nil) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var bytes: [UInt8]
        if let abstractName {
            path = abstractName
            directory = nil
            bytes = Array(abstractName.utf8)
            bytes[0] = 0
        } else {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "appwarden-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            ).path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            directory = folder
            path = folder + "/notify"
            bytes = Array(path.utf8)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            close()
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// The next datagram, waiting at most `timeout` milliseconds; nil when none came.
    func receive(timeoutMilliseconds timeout: Int32 = 10_000) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeout) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Every datagram that arrives within `timeout` milliseconds of the previous one.
    func receiveAll(until stop: (String) -> Bool, timeoutMilliseconds timeout: Int32 = 10_000) -> [String] {
        var messages: [String] = []
        while let message = receive(timeoutMilliseconds: timeout) {
            messages.append(message)
            if stop(message) { break }
        }
        return messages
    }

    func close() {
        _ = Glibc.close(descriptor)
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
