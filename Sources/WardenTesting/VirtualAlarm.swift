import Synchronization
public import WardenRuntime

/// The alarm of a daemon in virtual time: it keeps the deadline the daemon asks for and wakes
/// nobody by itself; `WardenTestBed` moves the clock to it and wakes the daemon.
public final class VirtualAlarm: DaemonAlarm {
    private let deadline = Mutex<Duration?>(nil)

    public init() {}

    /// The deadline the daemon asked to be woken at (time since the clock's start); nil when none.
    public var nextDeadline: Duration? { deadline.withLock { $0 } }

    public func set(_ deadline: Duration?) {
        self.deadline.withLock { $0 = deadline }
    }

    /// Returns at once: in virtual time the test bed wakes the daemon.
    public func run(clock: WardenClock, wake: @escaping @Sendable () -> Void) async {}
}
