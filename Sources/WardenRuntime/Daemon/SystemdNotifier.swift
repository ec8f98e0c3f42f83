#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The service manager's notification socket (`sd_notify(3)`): `READY=1`, `STOPPING=1`,
/// `WATCHDOG=1` and `STATUS=` lines sent as one datagram each to `$NOTIFY_SOCKET`.
///
/// Written directly with `socket(2)` and `sendto(2)`, so no libsystemd is needed. A path starting
/// with `@` names an abstract socket. Without `NOTIFY_SOCKET` (the daemon not started by systemd
/// with `Type=notify`) every send does nothing and reports false.
public struct SystemdNotifier: Sendable {
    /// The socket path from `NOTIFY_SOCKET`; nil when the daemon was not asked to notify.
    public let socketPath: String?

    /// Half of `WATCHDOG_USEC`, the interval at which `WATCHDOG=1` keeps the service alive; nil
    /// when no watchdog is set, or when `WATCHDOG_PID` names another process.
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`; `processID`
    /// (default: this process) is compared with `WATCHDOG_PID`.
    public init(environment: [String: String], processID: Int32? = nil) {
        let processID = processID ?? getpid()
        let path = environment["NOTIFY_SOCKET"] ?? ""
        socketPath = path.isEmpty ? nil : path
        if let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
            environment["WATCHDOG_PID"].map({ Int32($0) == processID }) ?? true
        {
            watchdogInterval = .microseconds(Int64(clamping: microseconds / 2))
        } else {
            watchdogInterval = nil
        }
    }

    /// Reads the process's own environment, then removes the three variables from it so that the
    /// apps the daemon launches do not inherit them (what `sd_notify`'s `unset_environment` does).
    public static func fromProcessEnvironment() -> SystemdNotifier {
        var environment: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(name) {
                environment[name] = String(cString: value)
                unsetenv(name)
            }
        }
        return SystemdNotifier(environment: environment)
    }

    /// `READY=1` with a status line: the control socket accepts calls.
    @discardableResult
    public func ready(status: String) -> Bool {
        send("READY=1\nSTATUS=\(Self.oneLine(status))\nMAINPID=\(getpid())\n")
    }

    /// `STOPPING=1` with a status line: the daemon has begun to stop.
    @discardableResult
    public func stopping(status: String) -> Bool {
        send("STOPPING=1\nSTATUS=\(Self.oneLine(status))\n")
    }

    /// `WATCHDOG=1`: the daemon is alive and its actor answers.
    @discardableResult
    public func watchdog() -> Bool {
        send("WATCHDOG=1\n")
    }

    /// `STATUS=` alone.
    @discardableResult
    public func status(_ text: String) -> Bool {
        send("STATUS=\(Self.oneLine(text))\n")
    }

    /// Sends `message` as one datagram (`socket(2)` with `SOCK_DGRAM`, `sendto(2)` with
    /// `MSG_NOSIGNAL`); false when there is no socket or the send fails.
    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        // An abstract address has no terminating zero: its length ends with its last byte.
        let length = MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(message.utf8)
        let sent = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    var result: Int
                    repeat {
                        result = sendto(
                            descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), socketAddress,
                            socklen_t(length))
                    } while result < 0 && errno == EINTR
                    return result
                }
            }
        }
        return sent == bytes.count
    }

    /// A status is one line: newlines would start new assignments.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" ? " " : $0 })
    }
}
