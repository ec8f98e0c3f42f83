import CWardenSpawn
import Synchronization
import WardenCgroup
import WardenPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Device events from the kernel's uevent socket (`NETLINK_KOBJECT_UEVENT`), read directly
/// rather than through libudev: it is the socket libudev's monitor reads, one datagram an event
/// of `KEY=VALUE` strings, so no library is linked and nothing is missing where no udevd runs (a
/// container, a minimal image), whose kernel events still arrive. Where udevd runs
/// (`/run/udev/control` exists) its events are read instead (multicast group 2, past the
/// `libudev` header), which carry what its rules add: `ID_VENDOR_ID`, `ID_MODEL_ID`, `TAGS`;
/// else the kernel's own (group 1), from the kernel only (sender port 0), whose USB ids are in
/// `PRODUCT`.
public final class KernelDeviceEvents: DeviceEventSource {
    private struct State {
        var fd: Int32 = -1
        var poll: EventPoll?
        var stopped = false
    }

    private let state = Mutex(State())
    /// Where udevd's control socket is; its presence says udevd runs.
    private let udevControl: String

    public init(udevControl: String = "/run/udev/control") {
        self.udevControl = udevControl
    }

    /// The multicast group read: udevd's (2) where it runs, else the kernel's (1).
    var group: UInt32 { access(udevControl, F_OK) == 0 ? 2 : 1 }

    public func start(_ event: @escaping @Sendable (String, [String: String]) -> Void) -> String? {
        let group = group
        let fd = warden_uevent_open(group)
        guard fd >= 0 else {
            return "the kernel's device events cannot be read (\(String(cString: strerror(errno))))"
        }
        let poll: EventPoll
        do {
            poll = try EventPoll()
            try poll.add(fd, events: Int16(POLLIN), key: 1)
        } catch {
            close(fd)
            return "the kernel's device events cannot be waited on (\(error))"
        }
        state.withLock { state in
            state.fd = fd
            state.poll = poll
        }
        do {
            try DetachedThread.start(name: "appwarden-devices") { [self] in
                self.run(fd: fd, poll: poll, fromUdev: group == 2, event)
            }
        } catch {
            stop()
            return "the thread that reads device events cannot be started (\(error))"
        }
        return nil
    }

    public func stop() {
        let poll = state.withLock { state -> EventPoll? in
            state.stopped = true
            return state.poll
        }
        poll?.wake()
    }

    /// Waits on the socket, reads every event waiting and hands each over, until `stop()`; then
    /// closes the socket.
    private func run(fd: Int32, poll: EventPoll, fromUdev: Bool, _ event: (String, [String: String]) -> Void) {
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        while !state.withLock({ $0.stopped }) {
            guard (try? poll.wait()) != nil else { break }
            while true {
                var sender: UInt32 = 0
                let length = buffer.withUnsafeMutableBufferPointer { bytes in
                    warden_uevent_receive(fd, bytes.baseAddress, bytes.count, &sender)
                }
                guard length > 0 else { break }
                // Group 1 takes the kernel's word only; udevd sends group 2 with its own port.
                if !fromUdev && sender != 0 { continue }
                let bytes = buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }
                guard let parsed = Self.parse(bytes) else { continue }
                event(parsed.action, parsed.properties)
            }
        }
        poll.remove(fd)
        close(fd)
    }

    /// One event as the socket gives it: the kernel's `ACTION@DEVPATH` then `KEY=VALUE`
    /// strings, each ending in a zero byte, or udevd's `libudev` header (magic 0xfeedcafe in
    /// network order, then the header's size, the properties' offset and length in the host's)
    /// before such strings. Nil for what is neither, or has no `ACTION`.
    static func parse(_ bytes: [UInt8]) -> (action: String, properties: [String: String])? {
        var fields = bytes[...]
        if bytes.starts(with: Array("libudev".utf8) + [0]) {
            guard bytes.count >= 24 else { return nil }
            func word(_ at: Int) -> Int {
                Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) })
            }
            guard bytes[8...11].elementsEqual([0xfe, 0xed, 0xca, 0xfe]) else { return nil }
            let offset = word(16)
            let length = word(20)
            guard offset >= 24, length >= 0, offset + length <= bytes.count else { return nil }
            fields = bytes[offset..<(offset + length)]
        }
        var properties: [String: String] = [:]
        for field in fields.split(separator: 0) {
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: field[field.startIndex..<equals], as: UTF8.self)
            properties[key] = String(decoding: field[(equals + 1)...], as: UTF8.self)
        }
        guard let action = properties["ACTION"] else { return nil }
        return (action, properties)
    }
}
