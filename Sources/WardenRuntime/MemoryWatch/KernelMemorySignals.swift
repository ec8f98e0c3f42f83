public import Logging
import Synchronization
public import WardenCgroup
import WardenCore

/// The kernel's memory notifications, all on one `PressureMonitor` (one thread): PSI triggers on
/// the whole device (`/proc/pressure/memory`) and on appwarden's root group, v1
/// `memory.pressure_level` of the root memory group, v1 usage thresholds at the policy's marks,
/// and each app group's OOM notifications (v1 `memory.oom_control`, v2 `memory.events`).
public final class KernelMemorySignals: MemorySignalSource {
    private struct State {
        var device: [PressureMonitor.Source] = []
        var thresholds: (group: String, marks: [UInt64])?
        /// Each watched app's OOM source, and the app of each source's group directory.
        var appSources: [String: PressureMonitor.Source] = [:]
        var appOfGroup: [String: String] = [:]
        var signal: (@Sendable (MemorySignal) -> Void)?
    }

    private let monitor: PressureMonitor?
    private let driver: (any CgroupDriver)?
    private let stall: Duration
    private let logger: Logger
    private let state = Mutex(State())

    /// The whole device's PSI file, which counts stalls in every group, appwarden's included.
    public static let devicePressurePath = "/proc/pressure/memory"

    /// Makes the source for the groups of `driver` (nil: the whole device's PSI only); `stall`
    /// is how long tasks must stall on memory within one second for a PSI trigger to fire.
    public init(driver: (any CgroupDriver)?, stall: Duration, logger: Logger) {
        self.driver = driver
        self.stall = stall
        self.logger = logger
        do {
            monitor = try PressureMonitor.start([])
        } catch {
            logger.warning("Memory pressure notifications unavailable: \(error)")
            monitor = nil
        }
    }

    public func armDevice() -> [String] {
        guard let monitor else { return [] }
        // The whole device's, with the shortest window the kernel accepts (500 ms, else 1 s,
        // else 2 s) and the stall at the same share of it.
        let window = Duration.milliseconds(500)
        var sources: [PressureMonitor.Source] = [
            .psi(
                path: Self.devicePressurePath, kind: .some, stall: stall * (window / .seconds(1)), window: window,
                level: .medium)
        ]
        if let driver {
            let probe = driver.group(named: "probe")
            if let unified = probe.unifiedPath.map(Self.parent) {
                sources.append(.psi(path: unified + "/memory.pressure", kind: .some, stall: stall, level: .medium))
                sources.append(.psi(path: unified + "/memory.pressure", kind: .full, stall: stall, level: .critical))
            }
            if let memory = probe.memoryPath.map(Self.parent) {
                sources.append(.pressureLevel(group: memory, level: .critical))
            }
        }
        var armed: [PressureMonitor.Source] = []
        for source in sources {
            do {
                armed.append(try monitor.add(source))
            } catch {
                logger.info("Memory pressure source not armed (\(Self.describe(source))): \(error)")
            }
        }
        state.withLock { $0.device = armed }
        return armed.map(Self.describe)
    }

    /// The device-wide sources as the kernel accepted them, in the order armed; empty once stopped.
    public var armedDeviceSources: [PressureMonitor.Source] { state.withLock { $0.device } }

    public func armUsageThresholds(group: String, marks: [UInt64]) -> Bool {
        guard let monitor else { return false }
        let previous = state.withLock { state -> (group: String, marks: [UInt64])? in
            defer { state.thresholds = nil }
            return state.thresholds
        }
        for mark in previous?.marks ?? [] {
            monitor.remove(.usageThreshold(group: previous!.group, bytes: mark))
        }
        var armed: [UInt64] = []
        for mark in marks {
            do {
                try monitor.add(.usageThreshold(group: group, bytes: mark))
                armed.append(mark)
            } catch {
                for done in armed { monitor.remove(.usageThreshold(group: group, bytes: done)) }
                logger.info("Memory usage thresholds not armed on \(group): \(error)")
                return false
            }
        }
        state.withLock { $0.thresholds = marks.isEmpty ? nil : (group, marks) }
        return true
    }

    public func watch(app: String, group: AppGroup) {
        guard let monitor, let driver else { return }
        let source: PressureMonitor.Source
        let directory: String
        if driver.layout.memorySource == .v1, let memory = group.memoryPath {
            source = .oomControl(group: memory)
            directory = memory
        } else if driver.layout.memorySource == .unified, let unified = group.unifiedPath {
            source = .memoryEvents(group: unified)
            directory = unified
        } else {
            return
        }
        unwatch(app: app)
        do {
            try monitor.add(source)
        } catch {
            logger.debug("OOM notifications of app \"\(app)\" not armed: \(error)")
            return
        }
        state.withLock { state in
            state.appSources[app] = source
            state.appOfGroup[directory] = app
        }
    }

    public func unwatch(app: String) {
        let source = state.withLock { state -> PressureMonitor.Source? in
            guard let source = state.appSources.removeValue(forKey: app) else { return nil }
            switch source {
            case .oomControl(let group), .memoryEvents(let group): state.appOfGroup[group] = nil
            case .psi, .pressureLevel, .usageThreshold: break
            }
            return source
        }
        if let source { monitor?.remove(source) }
    }

    public func connect(_ signal: @escaping @Sendable (MemorySignal) -> Void) {
        state.withLock { $0.signal = signal }
    }

    public func run() async {
        guard let monitor else { return }
        for await event in monitor {
            let (app, signal) = state.withLock { state in
                switch event.source {
                case .oomControl(let group), .memoryEvents(let group): (state.appOfGroup[group], state.signal)
                case .psi, .pressureLevel, .usageThreshold: (nil, state.signal)
                }
            }
            switch event.source {
            case .oomControl, .memoryEvents:
                if let app { signal?(.outOfMemory(app: app)) }
            case .psi, .pressureLevel, .usageThreshold:
                signal?(.pressure(event.source.description))
            }
        }
    }

    public func stop() {
        monitor?.stop()
        state.withLock {
            $0.device = []
            $0.thresholds = nil
            $0.signal = nil
        }
    }

    /// A pressure source in words: `PSI full 150ms in 1s of /sys/fs/cgroup/appwarden/memory.pressure`.
    static func describe(_ source: PressureMonitor.Source) -> String {
        switch source {
        case .psi(let path, let kind, let stall, let window, let level):
            "PSI \(kind.rawValue) \(DurationFormat.string(stall)) in \(DurationFormat.string(window)) of \(path) "
                + "(\(level))"
        case .pressureLevel(let group, let level, _): "\(group)/memory.pressure_level \(level)"
        case .oomControl(let group): "\(group)/memory.oom_control"
        case .memoryEvents(let group): "\(group)/memory.events"
        case .usageThreshold(let group, let bytes):
            "\(group)/memory.usage_in_bytes crossing \(DurationFormat.sizeString(Int64(bytes)))"
        }
    }

    /// The directory that holds `path`.
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
