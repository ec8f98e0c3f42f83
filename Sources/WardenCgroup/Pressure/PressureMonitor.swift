/// An asynchronous sequence of memory-pressure events from every source the host offers.
///
/// Sources: PSI triggers on a cgroup2 `memory.pressure` file, v1 usage thresholds on
/// `memory.usage_in_bytes`, v1 `memory.pressure_level` notifications (through `cgroup.event_control` and an eventfd, debounced because they fire
/// thousands of times a second under thrashing) and OOM notifications (v1 `memory.oom_control`,
/// v2 `memory.events`). Nothing here samples: the thread sleeps until the kernel signals, and
/// measuring memory is the daemon's memory watch's work. Everything is armed in `start`, so a source that cannot be armed is
/// an error there; blocking waits then run on one dedicated thread, not the cooperative pool.
/// Sources may be added and removed while it runs (`add`, `remove`), each on the same thread.
/// Ending the iteration (or `stop()`) closes every descriptor, then ends the sequence.
///
/// The sequence has a single consumer, like the `AsyncStream` it wraps.
public struct PressureMonitor: AsyncSequence, Sendable {
    public typealias Element = PressureEvent
    public typealias AsyncIterator = AsyncStream<PressureEvent>.AsyncIterator

    /// A source to watch.
    public enum Source: Sendable, Hashable {
        /// Which tasks a PSI trigger counts.
        public enum StallKind: String, Sendable, Hashable {
            /// At least one task stalled.
            case some
            /// All non-idle tasks stalled at once.
            case full
        }

        /// The v1 `memory.pressure_level` propagation mode.
        public enum PropagationMode: String, Sendable, Hashable {
            /// Events go to this group and, when nobody listens, its ancestors.
            case `default`
            /// Events from descendants reach this group too.
            case hierarchy
            /// Only this group's own pressure.
            case local
        }

        /// A PSI trigger on a `memory.pressure` file or `/proc/pressure/memory`: fire when tasks
        /// stall `stall` in any `window`.
        ///
        /// The kernel accepts windows from 500 ms to 10 s, and only multiples of 2 s without
        /// CAP_SYS_RESOURCE; a window it refuses is widened (1 s, 2 s, then the next multiple of
        /// 2 s) with the stall scaled alike (see `armed`).
        case psi(
            path: String, kind: StallKind = .some, stall: Duration = .milliseconds(150),
            window: Duration = .seconds(1), level: PressureEvent.Level = .medium)
        /// v1 `memory.pressure_level` of a memory group directory, at `level` (low, medium or critical).
        case pressureLevel(group: String, level: PressureEvent.Level = .low, mode: PropagationMode = .default)
        /// v1 OOM notifications of a memory group directory.
        case oomControl(group: String)
        /// v1 usage threshold of a memory group directory: an event each time
        /// `memory.usage_in_bytes` crosses `bytes`, upwards or downwards (`cgroup.event_control`
        /// with an eventfd). Never debounced: it fires on crossings only.
        case usageThreshold(group: String, bytes: UInt64)
        /// v2 `memory.events` of a group directory: an event each time `oom_kill` goes up.
        case memoryEvents(group: String)
    }

    /// What was armed for each source, in order: PSI triggers show the window the kernel accepted.
    public let armed: [Source]

    private let stream: AsyncStream<PressureEvent>
    private let watcher: Watcher

    /// Arms every source and starts watching them on a dedicated thread.
    ///
    /// - Parameters:
    ///   - sources: What to watch.
    ///   - debounce: The shortest time between two events of the same notification source
    ///     (PSI, pressure level, OOM); the ones in between are dropped.
    ///   - bufferLimit: How many undelivered events are kept; the newest win.
    /// - Throws: `CgroupError` naming the file of the first source that cannot be armed; every
    ///   descriptor opened so far is closed.
    public static func start(
        _ sources: [Source],
        debounce: Duration = .milliseconds(100),
        bufferLimit: Int = 256
    ) throws(CgroupError) -> PressureMonitor {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PressureEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let watches = try arm(sources)
        let watcher: Watcher
        do {
            watcher = try Watcher.start(watches, debounce: debounce, continuation: continuation)
        } catch {
            for watch in watches { watch.close() }
            throw error
        }
        continuation.onTermination = { _ in watcher.stop() }
        return PressureMonitor(armed: watches.map(\.armedSource), stream: stream, watcher: watcher)
    }

    public func makeAsyncIterator() -> AsyncStream<PressureEvent>.AsyncIterator {
        stream.makeAsyncIterator()
    }

    /// Arms `source` and watches it from now on, beside the others; returns the source as the
    /// kernel accepted it (a PSI trigger's window may be wider than asked).
    ///
    /// - Throws: `CgroupError` naming the file when the source cannot be armed, or when the
    ///   monitor has stopped.
    @discardableResult
    public func add(_ source: Source) throws(CgroupError) -> Source {
        let watch = try Self.arm(source)
        guard watcher.add(watch) else {
            throw CgroupError(
                code: .io, message: "The pressure monitor has stopped; \(source) is not watched.", cause: "stopped")
        }
        return watch.armedSource
    }

    /// Stops watching `source` (as it was given to `start` or `add`) and closes its descriptor.
    public func remove(_ source: Source) {
        watcher.remove(source)
    }

    /// Stops watching: the thread closes every descriptor, then the sequence ends.
    public func stop() {
        watcher.stop()
    }
}
